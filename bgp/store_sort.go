package bgp

import (
	"cmp"
	"slices"
)

// sortPaths4 sorts IPv4 paths by key, then path ID. It is a least significant
// digit radix sort (the table of a million paths is sorted on every snapshot:
// a comparison sort took ~0.3 s of it), one pass per byte, and a byte on
// which every path agrees (the path IDs without ADD-PATH, the first octet of
// a pod range, the prefix length of pod CIDRs, the peer's rank with few
// peers) costs a count and no pass. It returns the sorted paths, in ps or in
// a buffer of the same size.
func sortPaths4(ps []path4) []path4 {
	if len(ps) < 256 {
		slices.SortFunc(ps, func(a, b path4) int {
			if a.key != b.key {
				return cmp.Compare(a.key, b.key)
			}
			return cmp.Compare(a.id, b.id)
		})
		return ps
	}
	src, dst := ps, make([]path4, len(ps))
	pass := func(digit func(*path4) byte) {
		var count [256]int
		for i := range src {
			count[digit(&src[i])]++
		}
		if count[digit(&src[0])] == len(src) {
			return // every path has this byte
		}
		pos := 0
		for b, n := range count {
			count[b], pos = pos, pos+n
		}
		for i := range src {
			d := digit(&src[i])
			dst[count[d]] = src[i]
			count[d]++
		}
		src, dst = dst, src
	}
	// Least significant first: the path ID breaks ties of the key, so it
	// is sorted on first.
	for shift := 0; shift < 32; shift += 8 {
		pass(func(p *path4) byte { return byte(p.id >> shift) })
	}
	for shift := 0; shift < 64; shift += 8 {
		pass(func(p *path4) byte { return byte(p.key >> shift) })
	}
	return src
}
