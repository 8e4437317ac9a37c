package validator

import (
	"net/netip"
	"slices"
)

// addrMap maps addresses to V. IPv4 addresses, the common case, go to a
// table keyed by their 32 bits: attribution looks up every route's next hop,
// and a Go map of netip.Addr hashes 24 bytes and a pointer.
type addrMap[V any] struct {
	v4    *table4[V]
	other map[netip.Addr]V // and IPv4 addresses past table4's capacity
}

func newAddrMap[V any]() addrMap[V] {
	return addrMap[V]{v4: newTable4[V](0), other: map[netip.Addr]V{}}
}

func addr4(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func (m addrMap[V]) get(a netip.Addr) (V, bool) {
	if a.Is4() {
		if v, ok := m.v4.get(addr4(a)); ok || !m.v4.full() {
			return v, ok
		}
	}
	v, ok := m.other[a]
	return v, ok
}

func (m addrMap[V]) set(a netip.Addr, v V) {
	if !a.Is4() || !m.v4.set(addr4(a), v) {
		m.other[a] = v
	}
}

// table4 maps uint32 keys to V: a packedTable from key to the value's index.
type table4[V any] struct {
	idx  *packedTable
	vals []V
}

func newTable4[V any](size int) *table4[V] { return &table4[V]{idx: newPackedTable(size)} }

func (t *table4[V]) get(k uint32) (V, bool) {
	if i, ok := t.idx.get(uint64(k) + 1); ok { // +1: the packed table's keys are not 0
		return t.vals[i], true
	}
	var zero V
	return zero, false
}

// set maps k to v; it returns false, holding nothing new, once the table is full.
func (t *table4[V]) set(k uint32, v V) bool {
	if i, ok := t.idx.get(uint64(k) + 1); ok {
		t.vals[i] = v
		return true
	}
	if t.full() {
		return false
	}
	t.idx.set(uint64(k)+1, int32(len(t.vals)))
	t.vals = append(t.vals, v)
	return true
}

// full reports whether the table holds as many values as an index can name.
func (t *table4[V]) full() bool { return len(t.vals) >= packedMaxValue }

// indexPrefixes chains the routes of each prefix, in index order.
func (s *Snapshot) indexPrefixes() {
	s.byPrefix = newPrefixMap(len(s.Routes))
	s.next = make([]int32, len(s.Routes))
	if slices.IsSortedFunc(s.Routes, func(a, b Route) int { return comparePrefix(a.Prefix, b.Prefix) }) {
		// A table in prefix order (the BGP store's) has each prefix's routes
		// side by side: one map write per prefix and no lookup.
		for i := len(s.Routes) - 1; i >= 0; i-- {
			s.next[i] = -1
			if i+1 < len(s.Routes) && s.Routes[i+1].Prefix == s.Routes[i].Prefix {
				s.next[i] = int32(i + 1)
			}
			if i == 0 || s.Routes[i-1].Prefix != s.Routes[i].Prefix {
				s.byPrefix.set(s.Routes[i].Prefix, int32(i))
			}
		}
		return
	}
	for i := len(s.Routes) - 1; i >= 0; i-- {
		p := s.Routes[i].Prefix
		if head, ok := s.byPrefix.get(p); ok {
			s.next[i] = head
		} else {
			s.next[i] = -1
		}
		s.byPrefix.set(p, int32(i))
	}
}

// groupRoutes fills every node's route list (and the orphans') from one
// backing array, in index order; attribution has counted them.
func (s *Snapshot) groupRoutes(orphans int) {
	backing := make([]int, len(s.Routes))
	off := 0
	for _, name := range s.nodeNames {
		v := s.nodes[name]
		n := v.count
		v.routes = backing[off : off : off+n]
		off += n
	}
	s.orphans = backing[off : off : off+orphans]
	for i, v := range s.origins.owner {
		if v != nil {
			v.routes = append(v.routes, i)
		} else {
			s.orphans = append(s.orphans, i)
		}
	}
}
