package validator

// akeys holds the allocation table's distinct prefixes in order: IPv4 keys
// packed in one word each (address and length), IPv6 keys after them as
// akeys. A million IPv4 CIDRs take 8 MB instead of 24, and the binary search
// reads a third of the memory.
type akeys struct {
	v4 []uint64 // address << 8 | length, sorted
	v6 []akey   // sorted; every IPv6 key orders after every IPv4 key
}

func newAkeys(n int) akeys { return akeys{v4: make([]uint64, 0, n)} }

func pack4(k akey) uint64 { return k.lo<<8 | uint64(k.bits) }

func (ks *akeys) len() int { return len(ks.v4) + len(ks.v6) }

// at returns the i-th key.
func (ks *akeys) at(i int) akey {
	if i < len(ks.v4) {
		x := ks.v4[i]
		return akey{lo: x >> 8, bits: uint8(x)}
	}
	return ks.v6[i-len(ks.v4)]
}

// add appends k, which orders after every key held.
func (ks *akeys) add(k akey) {
	if k.v6 {
		ks.v6 = append(ks.v6, k)
		return
	}
	ks.v4 = append(ks.v4, pack4(k))
}

// search finds q as slices.BinarySearch over every key would, with the
// comparison inlined: every announced prefix takes one or two searches per
// validation (a million routes: a few seconds through a comparison function).
func (ks *akeys) search(q akey) (int, bool) {
	if !q.v6 {
		x := pack4(q)
		lo, hi := 0, len(ks.v4)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if ks.v4[m] < x {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return lo, lo < len(ks.v4) && ks.v4[lo] == x
	}
	lo, hi := 0, len(ks.v6)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if akeyLess(ks.v6[m], q) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return len(ks.v4) + lo, lo < len(ks.v6) && ks.v6[lo] == q
}
