package validator

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
)

// TestSortAllocations: the radix path for masked IPv4 CIDRs, merged with the
// rest, orders allocations as a comparison by prefix, then node, does; with
// CIDRs allocated twice, IPv6, and unmasked prefixes among them.
func TestSortAllocations(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for round := range 200 {
		var allocs []Allocation
		for range rnd.IntN(60) {
			var p netip.Prefix
			switch rnd.IntN(4) {
			case 0:
				a := netip.AddrFrom16([16]byte{0xfd, 0, 0, byte(rnd.IntN(4)), 15: byte(rnd.IntN(4))})
				p = netip.PrefixFrom(a, []int{48, 64, 128}[rnd.IntN(3)]).Masked()
			case 1: // unmasked
				p = netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(rnd.IntN(4)), byte(rnd.IntN(256))}), 24)
			default:
				a := netip.AddrFrom4([4]byte{10, byte(rnd.IntN(3)), byte(rnd.IntN(4)), byte(rnd.IntN(4) * 64)})
				p = netip.PrefixFrom(a, []int{8, 16, 24, 26}[rnd.IntN(4)]).Masked()
			}
			allocs = append(allocs, Allocation{Prefix: p, Node: fmt.Sprintf("node%d", rnd.IntN(12))})
		}
		// In node order, as the snapshot hands them over.
		slices.SortStableFunc(allocs, func(a, b Allocation) int { return cmp.Compare(a.Node, b.Node) })
		want := slices.Clone(allocs)
		slices.SortFunc(want, func(a, b Allocation) int {
			return cmp.Or(comparePrefix(a.Prefix, b.Prefix), cmp.Compare(a.Node, b.Node))
		})
		var got []Allocation
		for _, i := range sortAllocations(allocs) {
			got = append(got, allocs[i])
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d:\n got %v\nwant %v", round, got, want)
		}
	}
}
