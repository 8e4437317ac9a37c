package validator

import (
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
)

// TestAllocTableSearch checks the inlined binary search against the order of
// netip prefixes (address, then length; IPv4 before IPv6) on random keys.
func TestAllocTableSearch(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	random := func() netip.Prefix {
		if rnd.IntN(3) == 0 {
			a := netip.AddrFrom16([16]byte{0xfd, 0, byte(rnd.IntN(4)), 15: byte(rnd.IntN(4))})
			return netip.PrefixFrom(a, 64+rnd.IntN(65)).Masked()
		}
		a := netip.AddrFrom4([4]byte{10, byte(rnd.IntN(4)), byte(rnd.IntN(4)), byte(rnd.IntN(256))})
		return netip.PrefixFrom(a, 8+rnd.IntN(25)).Masked()
	}
	var ps []netip.Prefix
	for range 300 {
		ps = append(ps, random())
	}
	slices.SortFunc(ps, comparePrefix)
	ps = slices.Compact(ps)
	tab := &allocTable{}
	for _, p := range ps {
		k, _ := akeyOf(p)
		tab.keys.add(k)
	}
	for range 2000 {
		q := random()
		want, wantFound := slices.BinarySearchFunc(ps, q, comparePrefix)
		k, _ := akeyOf(q)
		if got, found := tab.search(k); got != want || found != wantFound {
			t.Fatalf("search(%s) = %d, %v; want %d, %v", q, got, found, want, wantFound)
		}
	}
}
