package validator

import (
	"net/netip"
	"slices"
)

// Allocation is a CIDR allocated to a node: the CIDR the node routes.
type Allocation struct {
	Prefix netip.Prefix
	Node   string
	// Source names the field the allocation came from, for messages.
	Source string
}

// allocTable answers "which allocations are equal to, cover, or lie inside this
// prefix" in O(log n + k): allocations are kept sorted by address, and an exact
// map serves the covering lookups, one per distinct allocation length.
type allocTable struct {
	sorted  []Allocation
	exact   map[pkey][]int
	lengths [2][]int // distinct prefix lengths, [0] IPv4, [1] IPv6, ascending
}

func newAllocTable(allocs []Allocation) *allocTable {
	t := &allocTable{sorted: allocs, exact: make(map[pkey][]int, len(allocs))}
	slices.SortFunc(t.sorted, func(a, b Allocation) int {
		if c := comparePrefix(a.Prefix, b.Prefix); c != 0 {
			return c
		}
		if a.Node < b.Node {
			return -1
		}
		if a.Node > b.Node {
			return 1
		}
		return 0
	})
	seen := [2]map[int]bool{{}, {}}
	for i, a := range t.sorted {
		t.exact[keyOf(a.Prefix)] = append(t.exact[keyOf(a.Prefix)], i)
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

// pkey is a prefix as a flat map key: hashing netip.Prefix itself is slow
// (it holds a pointer for the zone), and the engine hashes millions of them.
type pkey struct {
	addr [16]byte
	bits uint8
}

func keyOf(p netip.Prefix) pkey {
	b := p.Bits()
	if p.Addr().Is4() {
		b += 128 // keep 10.0.0.0/8 apart from ::a00:0/8
	}
	return pkey{addr: p.Addr().As16(), bits: uint8(b)}
}

func family(p netip.Prefix) int {
	if p.Addr().Is4() {
		return 0
	}
	return 1
}

// Relation is how an announced prefix relates to an allocation.
type Relation int

// Relations of an announced prefix to an allocated CIDR.
const (
	RelEqual    Relation = iota + 1 // the same prefix
	RelInside                       // the announced prefix lies inside the allocation
	RelCovering                     // the announced prefix covers the allocation
)

// Overlap is an allocation that overlaps an announced prefix.
type Overlap struct {
	Allocation
	Rel Relation
}

// exactly returns the allocations equal to p.
func (t *allocTable) exactly(p netip.Prefix) []Allocation {
	idx := t.exact[keyOf(p)]
	out := make([]Allocation, len(idx))
	for i, j := range idx {
		out[i] = t.sorted[j]
	}
	return out
}

// overlapping calls fn for every allocation equal to, covering, or inside p.
func (t *allocTable) overlapping(p netip.Prefix, fn func(Overlap)) {
	for _, j := range t.exact[keyOf(p)] {
		fn(Overlap{t.sorted[j], RelEqual})
	}
	for _, l := range t.lengths[family(p)] {
		if l >= p.Bits() {
			break
		}
		super, _ := p.Addr().Prefix(l)
		for _, j := range t.exact[keyOf(super)] {
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

// inRanges reports whether p lies inside one of ranges.
func inRanges(p netip.Prefix, ranges []netip.Prefix) bool {
	for _, r := range ranges {
		if r.Bits() <= p.Bits() && r.Contains(p.Addr()) {
			return true
		}
	}
	return false
}
