package radix

// insertionMax is the largest bucket SortInPlace sorts by insertion.
const insertionMax = 24

// SortInPlace sorts s by key without allocating: a most significant digit
// radix sort that permutes each byte's buckets in place (American flag sort).
// Unlike Sort it does not keep the order of equal keys, so callers that need
// a stable order put a tie-breaker in the key's low bits. It needs no buffer
// of len(s) elements: at a million routes that is the difference between a
// sort and a sort plus 16 MB the first verdict holds until the next
// collection.
func SortInPlace[T any](s []T, key func(*T) uint64) {
	sortDigit(s, key, 56)
}

func sortDigit[T any](s []T, key func(*T) uint64, shift uint) {
	for len(s) > insertionMax {
		var count [256]int
		for i := range s {
			count[byte(key(&s[i])>>shift)]++
		}
		if count[byte(key(&s[0])>>shift)] == len(s) { // every key has this byte
			if shift == 0 {
				return
			}
			shift -= 8
			continue
		}
		var next, end [256]int
		pos := 0
		for b, n := range count {
			next[b], pos = pos, pos+n
			end[b] = pos
		}
		// Elements move only by swaps within s: key takes a pointer, and a
		// pointer to a local would move every element to the heap.
		for b := range 256 {
			for i := next[b]; i < end[b]; i = next[b] {
				d := byte(key(&s[i]) >> shift)
				for int(d) != b {
					s[i], s[next[d]] = s[next[d]], s[i]
					next[d]++
					d = byte(key(&s[i]) >> shift)
				}
				next[b]++
			}
		}
		if shift == 0 {
			return
		}
		start := 0
		for _, n := range count {
			if n > 1 {
				sortDigit(s[start:start+n], key, shift-8)
			}
			start += n
		}
		return
	}
	for i := 1; i < len(s); i++ {
		k := key(&s[i])
		for j := i; j > 0 && key(&s[j-1]) > k; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
