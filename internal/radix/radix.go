// Package radix sorts large slices by unsigned integer keys: a least
// significant digit radix sort, one pass per byte of the key, stable. A byte
// on which every key agrees (the high bytes of small numbers, the first octet
// of addresses from one range, the length of prefixes of one size) costs a
// count and no pass. For a million elements it takes a fraction of a
// comparison sort's time, which routewarden pays on every snapshot of a
// large route table. SortInPlace trades stability for needing no buffer.
package radix

// Sort sorts s by key, keeping the order of elements with equal keys, and
// returns the sorted elements: in s, or in a new slice of the same length.
func Sort[T any](s []T, key func(*T) uint64) []T {
	if len(s) < 2 {
		return s
	}
	var buf []T
	src := s
	for shift := 0; shift < 64; shift += 8 {
		var count [256]int
		for i := range src {
			count[byte(key(&src[i])>>shift)]++
		}
		if count[byte(key(&src[0])>>shift)] == len(src) {
			continue // every key has this byte
		}
		if buf == nil {
			buf = make([]T, len(s))
		}
		dst := buf
		pos := 0
		for b, n := range count {
			count[b], pos = pos, pos+n
		}
		for i := range src {
			d := byte(key(&src[i]) >> shift)
			dst[count[d]] = src[i]
			count[d]++
		}
		src, buf = dst, src
	}
	return src
}
