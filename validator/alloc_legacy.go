package validator

import (
	"net/netip"
	"slices"

	"github.com/routewarden/routewarden/validator/index"
)

// legacyAllocs answers overlap queries for prefixes that are not masked (host
// bits set) or not valid, which the forest in allocTable cannot place. The
// adapters mask every prefix they produce, so this serves hand-built inputs
// only, with the semantics the engine always had: an exact map, one covering
// lookup per distinct allocation length, and a scan from p's address.
type legacyAllocs struct {
	sorted  []Allocation
	exact   map[index.HashKey][]int
	lengths [2][]int // distinct prefix lengths, [0] IPv4, [1] IPv6, ascending
}

func (t *allocTable) legacyAllocs() *legacyAllocs {
	t.legacyOnce.Do(func() { t.legacy = newLegacyAllocs(t.inOrder()) })
	return t.legacy
}

func newLegacyAllocs(sorted []Allocation) *legacyAllocs {
	t := &legacyAllocs{sorted: sorted, exact: make(map[index.HashKey][]int, len(sorted))}
	seen := [2]map[int]bool{{}, {}}
	for i, a := range t.sorted {
		t.exact[index.HashKeyOf(a.Prefix)] = append(t.exact[index.HashKeyOf(a.Prefix)], i)
		f := family(a.Prefix)
		if !seen[f][a.Prefix.Bits()] {
			seen[f][a.Prefix.Bits()] = true
			t.lengths[f] = append(t.lengths[f], a.Prefix.Bits())
		}
	}
	slices.Sort(t.lengths[0])
	slices.Sort(t.lengths[1])
	return t
}

func (t *legacyAllocs) exactly(p netip.Prefix) []Allocation {
	idx := t.exact[index.HashKeyOf(p)]
	out := make([]Allocation, len(idx))
	for i, j := range idx {
		out[i] = t.sorted[j]
	}
	return out
}

func (t *legacyAllocs) overlapping(p netip.Prefix, fn func(Overlap)) {
	for _, j := range t.exact[index.HashKeyOf(p)] {
		fn(Overlap{t.sorted[j], RelEqual})
	}
	for _, l := range t.lengths[family(p)] {
		if l >= p.Bits() {
			break
		}
		super, _ := p.Addr().Prefix(l)
		for _, j := range t.exact[index.HashKeyOf(super)] {
			fn(Overlap{t.sorted[j], RelInside})
		}
	}
	// Allocations more specific than p start at or after p's first address.
	start, _ := slices.BinarySearchFunc(t.sorted, p.Addr(), func(a Allocation, addr netip.Addr) int {
		return a.Prefix.Addr().Compare(addr)
	})
	for _, a := range t.sorted[start:] {
		if !p.Contains(a.Prefix.Addr()) {
			break
		}
		if a.Prefix.Bits() > p.Bits() {
			fn(Overlap{a, RelCovering})
		}
	}
}
