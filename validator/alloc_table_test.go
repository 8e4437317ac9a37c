package validator

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// TestAllocTableMatchesLinearScan compares the forest lookups with the
// previous table (legacyAllocs: an exact map per length plus a scan) on random
// nested, duplicated and mixed-family allocations, masked and not.
func TestAllocTableMatchesLinearScan(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	randPrefix := func(masked bool) netip.Prefix {
		var p netip.Prefix
		if rnd.IntN(3) == 0 {
			a := netip.AddrFrom16([16]byte{0xfd, 0, 0, 0, 0, 0, 0, byte(rnd.IntN(4)), 0, 0, 0, 0, 0, 0, 0, byte(rnd.IntN(4))})
			p = netip.PrefixFrom(a, []int{0, 48, 56, 62, 63, 64, 126, 128}[rnd.IntN(8)])
		} else {
			a := netip.AddrFrom4([4]byte{10, 0, byte(rnd.IntN(4)), byte(rnd.IntN(4) * 64)})
			p = netip.PrefixFrom(a, []int{0, 8, 16, 22, 23, 24, 25, 26, 32}[rnd.IntN(9)])
		}
		if masked {
			return p.Masked()
		}
		return p
	}
	for round := range 300 {
		masked := round%5 != 0
		var allocs []Allocation
		for i := range rnd.IntN(12) {
			allocs = append(allocs, Allocation{Prefix: randPrefix(masked), Node: fmt.Sprintf("n%d", i%4)})
		}
		// In node order, as the snapshot hands them over.
		slices.SortStableFunc(allocs, func(a, b Allocation) int { return strings.Compare(a.Node, b.Node) })
		table := newAllocTable(slices.Clone(allocs))
		legacy := newLegacyAllocs(table.inOrder())
		for range 30 {
			p := randPrefix(rnd.IntN(4) > 0)
			var got, want []Overlap
			table.overlapping(p, func(o Overlap) { got = append(got, o) })
			legacy.overlapping(p, func(o Overlap) { want = append(want, o) })
			if !slices.Equal(got, want) {
				t.Fatalf("round %d: overlapping(%s) over %v:\n got %v\nwant %v", round, p, table.inOrder(), got, want)
			}
			if g, w := table.exactly(p), legacy.exactly(p); !slices.Equal(g, w) {
				t.Fatalf("round %d: exactly(%s): got %v, want %v", round, p, g, w)
			}
		}
	}
}
