package validator

import (
	"net/netip"
	"sync"

	"github.com/routewarden/routewarden/validator/index"
)

// allocTable answers "which allocations are equal to, cover, or lie inside this
// prefix" with one binary search. CIDRs nest or are disjoint, so the distinct
// allocated prefixes, sorted by address, form a forest: every allocation that
// holds a prefix is an ancestor of the last allocation sorted at or before it,
// and the allocations inside a prefix follow it in one contiguous run.
type allocTable struct {
	all    []Allocation     // as given (the snapshot's, in node order); not modified
	sorted []int32          // indexes into all, by prefix, then node
	keys   index.SortedKeys // distinct prefixes of sorted, in the same order
	first  []int32          // keys[k]'s allocations are sorted[first[k]:first[k+1]]
	parent []int32          // the nearest key strictly holding keys[k], -1 for none
	// legacy serves the prefixes the forest cannot: unmasked or invalid ones.
	legacy     *legacyAllocs
	legacyOnce sync.Once // rules may run concurrently
	exotic     bool      // some allocation is unmasked or invalid: always use legacy
	// blocks4 marks the IPv4 /16 blocks any allocation touches: most announced
	// prefixes (LoadBalancer VIPs) touch none and need no search at all.
	blocks4 *[1 << 16 / 64]uint64
}

// markBlocks4 marks the /16 blocks of an IPv4 prefix.
func (t *allocTable) markBlocks4(k index.SortKey) {
	first, n := k.Lo>>16, uint64(1)
	if k.Bits < 16 {
		n = 1 << (16 - k.Bits)
	}
	for b := first; b < first+n; b++ {
		t.blocks4[b/64] |= 1 << (b % 64)
	}
}

// clear4 reports whether no allocation touches IPv4 prefix k.
func (t *allocTable) clear4(k index.SortKey) bool {
	first, n := k.Lo>>16, uint64(1)
	if k.Bits < 16 {
		n = 1 << (16 - k.Bits)
	}
	for b := first; b < first+n; b++ {
		if t.blocks4[b/64]&(1<<(b%64)) != 0 {
			return false
		}
	}
	return true
}

// search finds q in keys as slices.BinarySearch would.
func (t *allocTable) search(q index.SortKey) (int, bool) { return t.keys.Search(q) }

// newAllocTable indexes allocs, which are in node order.
func newAllocTable(allocs []Allocation) *allocTable {
	t := &allocTable{all: allocs, sorted: sortAllocations(allocs), blocks4: new([1 << 16 / 64]uint64)}
	n := len(allocs) // most allocations are distinct prefixes: no regrowing
	t.keys, t.first, t.parent = index.NewSortedKeys(n), make([]int32, 0, n+1), make([]int32, 0, n)
	var stack []int32
	for i, j := range t.sorted {
		k, ok := index.SortKeyOf(allocs[j].Prefix)
		if !ok {
			t.exotic = true
			continue
		}
		if n := t.keys.Len(); n > 0 && t.keys.At(n-1) == k {
			continue
		}
		if !k.V6 {
			t.markBlocks4(k)
		}
		for len(stack) > 0 && !t.keys.At(int(stack[len(stack)-1])).Holds(k) {
			stack = stack[:len(stack)-1]
		}
		parent := int32(-1)
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		stack = append(stack, int32(t.keys.Len()))
		t.keys.Add(k)
		t.first, t.parent = append(t.first, int32(i)), append(t.parent, parent)
	}
	t.first = append(t.first, int32(len(t.sorted)))
	return t
}

// group calls fn with each allocation of keys[k].
func (t *allocTable) group(k int32, rel Relation, fn func(Overlap)) {
	for _, j := range t.sorted[t.first[k]:t.first[k+1]] {
		fn(Overlap{t.all[j], rel})
	}
}

// inOrder returns the allocations sorted by prefix, then node.
func (t *allocTable) inOrder() []Allocation {
	out := make([]Allocation, len(t.sorted))
	for i, j := range t.sorted {
		out[i] = t.all[j]
	}
	return out
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
	q, ok := index.SortKeyOf(p)
	if !ok || t.exotic {
		return t.legacyAllocs().exactly(p)
	}
	k, found := t.search(q)
	out := []Allocation{}
	if found {
		t.group(int32(k), RelEqual, func(ov Overlap) { out = append(out, ov.Allocation) })
	}
	return out
}

// overlapping calls fn for every allocation equal to, covering, or inside p:
// the equal ones first, then those holding p from the widest, then those
// inside p in address order.
func (t *allocTable) overlapping(p netip.Prefix, fn func(Overlap)) {
	q, ok := index.SortKeyOf(p)
	if !ok || t.exotic {
		t.legacyAllocs().overlapping(p, fn)
		return
	}
	if !q.V6 && t.clear4(q) {
		return
	}
	// j is the last key sorted at or before q: every key holding q is j or one
	// of its ancestors, and the keys inside q follow j.
	j, found := t.search(q)
	if !found {
		j--
	}
	k := int32(j)
	for k >= 0 && !t.keys.At(int(k)).Holds(q) {
		k = t.parent[k]
	}
	var buf [8]int32
	holders := buf[:0]
	for ; k >= 0; k = t.parent[k] {
		holders = append(holders, k)
	}
	if found {
		t.group(holders[0], RelEqual, fn)
		holders = holders[1:]
	}
	for i := len(holders) - 1; i >= 0; i-- {
		t.group(holders[i], RelInside, fn)
	}
	for m := j + 1; m < t.keys.Len() && q.Holds(t.keys.At(m)); m++ {
		t.group(int32(m), RelCovering, fn)
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
