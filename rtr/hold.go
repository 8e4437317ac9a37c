package rtr

import (
	"net/netip"
	"slices"

	"github.com/routewarden/routewarden/validator/roa"
)

// originLoss counts the prefixes of base that have an origin (a ROA with an
// AS other than 0) and how many of those have none left in next: a prefix
// whose AS changed is not lost, and an AS0 ROA is never counted (its loss
// only makes routes NotFound, never Invalid).
func originLoss(base, next []roa.ROA) (lost, served int) {
	keeps := map[netip.Prefix]bool{}
	for _, r := range next {
		if r.ASN != 0 {
			keeps[r.Prefix] = true
		}
	}
	seen := map[netip.Prefix]bool{}
	for _, r := range base {
		if r.ASN == 0 || seen[r.Prefix] {
			continue
		}
		seen[r.Prefix] = true
		served++
		if !keeps[r.Prefix] {
			lost++
		}
	}
	return lost, served
}

// union is a and b (both sorted) merged, sorted, without duplicates: while
// a drop is held, the held-back set with the new set's additions.
func union(a, b []roa.ROA) []roa.ROA {
	out := make([]roa.ROA, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	slices.SortStableFunc(out, roa.Compare)
	return slices.CompactFunc(out, func(x, y roa.ROA) bool { return x.Key() == y.Key() })
}
