package index

// SortedKeys holds distinct prefixes in order: IPv4 keys packed in one word
// each (address and length), IPv6 keys after them as SortKeys. A million IPv4
// CIDRs take 8 MB instead of 24, and the binary search reads a third of the
// memory.
type SortedKeys struct {
	v4 []uint64  // address << 8 | length, sorted
	v6 []SortKey // sorted; every IPv6 key orders after every IPv4 key
}

// NewSortedKeys returns an empty list with room for n IPv4 keys.
func NewSortedKeys(n int) SortedKeys { return SortedKeys{v4: make([]uint64, 0, n)} }

func pack4(k SortKey) uint64 { return k.Lo<<8 | uint64(k.Bits) }

// Len is how many keys the list holds.
func (ks *SortedKeys) Len() int { return len(ks.v4) + len(ks.v6) }

// At returns the i-th key.
func (ks *SortedKeys) At(i int) SortKey {
	if i < len(ks.v4) {
		x := ks.v4[i]
		return SortKey{Lo: x >> 8, Bits: uint8(x)}
	}
	return ks.v6[i-len(ks.v4)]
}

// Add appends k, which orders after every key held.
func (ks *SortedKeys) Add(k SortKey) {
	if k.V6 {
		ks.v6 = append(ks.v6, k)
		return
	}
	ks.v4 = append(ks.v4, pack4(k))
}

// Search finds q as slices.BinarySearch over every key would, with the
// comparison inlined: every announced prefix takes one or two searches per
// validation (a million routes: a few seconds through a comparison function).
func (ks *SortedKeys) Search(q SortKey) (int, bool) {
	if !q.V6 {
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
		if ks.v6[m].Less(q) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return len(ks.v4) + lo, lo < len(ks.v6) && ks.v6[lo] == q
}
