package validator

import (
	"net/netip"
	"sync"
)

// allocTable answers "which allocations are equal to, cover, or lie inside this
// prefix" with one binary search. CIDRs nest or are disjoint, so the distinct
// allocated prefixes, sorted by address, form a forest: every allocation that
// holds a prefix is an ancestor of the last allocation sorted at or before it,
// and the allocations inside a prefix follow it in one contiguous run.
type allocTable struct {
	all    []Allocation // as given (the snapshot's, in node order); not modified
	sorted []int32      // indexes into all, by prefix, then node
	keys   akeys        // distinct prefixes of sorted, in the same order
	first  []int32      // keys[k]'s allocations are sorted[first[k]:first[k+1]]
	parent []int32      // the nearest key strictly holding keys[k], -1 for none
	// legacy serves the prefixes the forest cannot: unmasked or invalid ones.
	legacy     *legacyAllocs
	legacyOnce sync.Once // rules may run concurrently
	exotic     bool      // some allocation is unmasked or invalid: always use legacy
	// blocks4 marks the IPv4 /16 blocks any allocation touches: most announced
	// prefixes (LoadBalancer VIPs) touch none and need no search at all.
	blocks4 *[1 << 16 / 64]uint64
}

// markBlocks4 marks the /16 blocks of an IPv4 prefix.
func (t *allocTable) markBlocks4(k akey) {
	first, n := k.lo>>16, uint64(1)
	if k.bits < 16 {
		n = 1 << (16 - k.bits)
	}
	for b := first; b < first+n; b++ {
		t.blocks4[b/64] |= 1 << (b % 64)
	}
}

// clear4 reports whether no allocation touches IPv4 prefix k.
func (t *allocTable) clear4(k akey) bool {
	first, n := k.lo>>16, uint64(1)
	if k.bits < 16 {
		n = 1 << (16 - k.bits)
	}
	for b := first; b < first+n; b++ {
		if t.blocks4[b/64]&(1<<(b%64)) != 0 {
			return false
		}
	}
	return true
}

// akey is a masked prefix as integers: v6 orders IPv4 first, as Addr.Compare does.
type akey struct { // 24 bytes: the table keeps one for each distinct CIDR
	hi, lo uint64
	v6     bool
	bits   uint8
}

func akeyOf(p netip.Prefix) (akey, bool) {
	a := p.Addr()
	if !p.IsValid() || a.Zone() != "" || p.Masked() != p {
		return akey{}, false
	}
	if a.Is4() {
		b := a.As4()
		return akey{lo: uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3]), bits: uint8(p.Bits())}, true
	}
	b := a.As16()
	var hi, lo uint64
	for i := range 8 {
		hi, lo = hi<<8|uint64(b[i]), lo<<8|uint64(b[i+8])
	}
	return akey{hi: hi, lo: lo, v6: true, bits: uint8(p.Bits())}, true
}

// search finds q in keys as slices.BinarySearch would.
func (t *allocTable) search(q akey) (int, bool) { return t.keys.search(q) }

// akeyLess orders keys by family (IPv4 first, as Addr.Compare does), address
// and prefix length.
func akeyLess(a, b akey) bool {
	switch {
	case a.v6 != b.v6:
		return b.v6
	case a.hi != b.hi:
		return a.hi < b.hi
	case a.lo != b.lo:
		return a.lo < b.lo
	}
	return a.bits < b.bits
}

// holds reports whether prefix a equals or contains prefix b.
func (a akey) holds(b akey) bool {
	if a.v6 != b.v6 || a.bits > b.bits {
		return false
	}
	width := 32
	if a.v6 {
		width = 128
	}
	host := width - int(a.bits) // host bits of a, counted from the low end of hi:lo
	hi, lo := b.hi, b.lo
	switch {
	case host >= 128:
		hi, lo = 0, 0
	case host >= 64:
		hi, lo = hi&^(1<<(host-64)-1), 0
	case host > 0:
		lo &^= 1<<host - 1
	}
	return hi == a.hi && lo == a.lo
}

// newAllocTable indexes allocs, which are in node order.
func newAllocTable(allocs []Allocation) *allocTable {
	t := &allocTable{all: allocs, sorted: sortAllocations(allocs), blocks4: new([1 << 16 / 64]uint64)}
	n := len(allocs) // most allocations are distinct prefixes: no regrowing
	t.keys, t.first, t.parent = newAkeys(n), make([]int32, 0, n+1), make([]int32, 0, n)
	var stack []int32
	for i, j := range t.sorted {
		k, ok := akeyOf(allocs[j].Prefix)
		if !ok {
			t.exotic = true
			continue
		}
		if n := t.keys.len(); n > 0 && t.keys.at(n-1) == k {
			continue
		}
		if !k.v6 {
			t.markBlocks4(k)
		}
		for len(stack) > 0 && !t.keys.at(int(stack[len(stack)-1])).holds(k) {
			stack = stack[:len(stack)-1]
		}
		parent := int32(-1)
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		stack = append(stack, int32(t.keys.len()))
		t.keys.add(k)
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
	q, ok := akeyOf(p)
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
	q, ok := akeyOf(p)
	if !ok || t.exotic {
		t.legacyAllocs().overlapping(p, fn)
		return
	}
	if !q.v6 && t.clear4(q) {
		return
	}
	// j is the last key sorted at or before q: every key holding q is j or one
	// of its ancestors, and the keys inside q follow j.
	j, found := t.search(q)
	if !found {
		j--
	}
	k := int32(j)
	for k >= 0 && !t.keys.at(int(k)).holds(q) {
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
	for m := j + 1; m < t.keys.len() && q.holds(t.keys.at(m)); m++ {
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
