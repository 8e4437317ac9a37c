package index

import (
	"cmp"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
)

// TestSortedKeysSearch checks the inlined binary search against the order of
// netip prefixes (address, then length; IPv4 before IPv6) on random keys.
func TestSortedKeysSearch(t *testing.T) {
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
	var keys SortedKeys
	for _, p := range ps {
		k, _ := SortKeyOf(p)
		keys.Add(k)
	}
	for range 2000 {
		q := random()
		want, wantFound := slices.BinarySearchFunc(ps, q, comparePrefix)
		k, _ := SortKeyOf(q)
		if got, found := keys.Search(k); got != want || found != wantFound {
			t.Fatalf("search(%s) = %d, %v; want %d, %v", q, got, found, want, wantFound)
		}
	}
}

// comparePrefix is the order of the validator's tables: address (IPv4
// first), then length.
func comparePrefix(a, b netip.Prefix) int {
	return cmp.Or(a.Addr().Compare(b.Addr()), cmp.Compare(a.Bits(), b.Bits()))
}
