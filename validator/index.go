package validator

import (
	"net/netip"
	"slices"
)

// addrMap maps addresses to V. IPv4 addresses, the common case, go to an
// open-addressing table keyed by their 32 bits: attribution looks up every
// route's next hop, and a Go map of netip.Addr hashes 24 bytes and a pointer.
type addrMap[V any] struct {
	v4    *table4[V]
	other map[netip.Addr]V
}

func newAddrMap[V any]() addrMap[V] {
	return addrMap[V]{v4: newTable4[V](8), other: map[netip.Addr]V{}}
}

func addr4(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func (m addrMap[V]) get(a netip.Addr) (V, bool) {
	if a.Is4() {
		return m.v4.get(addr4(a))
	}
	v, ok := m.other[a]
	return v, ok
}

func (m addrMap[V]) set(a netip.Addr, v V) {
	if a.Is4() {
		m.v4.set(addr4(a), v)
		return
	}
	m.other[a] = v
}

// table4 is a linear-probing hash table from uint32 to V, at most half full.
type table4[V any] struct {
	slots []slot4 // len is a power of two
	vals  []V
	shift uint // 32 - log2(len(slots))
}

type slot4 struct {
	key uint32
	idx int32 // into vals; -1 marks a free slot
}

func newTable4[V any](logSize uint) *table4[V] {
	t := &table4[V]{slots: make([]slot4, 1<<logSize), shift: 32 - logSize}
	for i := range t.slots {
		t.slots[i].idx = -1
	}
	return t
}

// find returns k's slot, or the free slot where it would go.
func (t *table4[V]) find(k uint32) int {
	mask := len(t.slots) - 1
	for p := int((k * 0x9E3779B1) >> t.shift); ; p = (p + 1) & mask {
		if s := t.slots[p]; s.idx < 0 || s.key == k {
			return p
		}
	}
}

func (t *table4[V]) get(k uint32) (V, bool) {
	if s := t.slots[t.find(k)]; s.idx >= 0 {
		return t.vals[s.idx], true
	}
	var zero V
	return zero, false
}

func (t *table4[V]) set(k uint32, v V) {
	p := t.find(k)
	if s := t.slots[p]; s.idx >= 0 {
		t.vals[s.idx] = v
		return
	}
	if 2*(len(t.vals)+1) > len(t.slots) {
		grown := newTable4[V](32 - t.shift + 1)
		for _, s := range t.slots {
			if s.idx >= 0 {
				grown.slots[grown.find(s.key)] = s
			}
		}
		t.slots, t.shift = grown.slots, grown.shift
		p = t.find(k)
	}
	t.slots[p] = slot4{key: k, idx: int32(len(t.vals))}
	t.vals = append(t.vals, v)
}

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
