package index

import "net/netip"

// PrefixMap maps prefixes to the first route index of a chain. IPv4
// prefixes, keyed by address and length in 40 bits, go to a table of one
// word a slot (key and index), 16 MB for a million prefixes where a Go map
// took 38 MB and a fifth of the indexing time; an index past that word's 24
// bits moves them to a map.
type PrefixMap struct {
	v4    *packedTable // nil once an index outgrew it
	big4  map[uint64]int32
	other map[HashKey]int32
}

// NewPrefixMap returns an empty map sized for size IPv4 prefixes.
func NewPrefixMap(size int) PrefixMap {
	return PrefixMap{v4: newPackedTable(size), other: map[HashKey]int32{}}
}

// key4 is an IPv4 prefix's key: address, then length plus one (never 0).
func key4(p netip.Prefix) uint64 { return uint64(addr4(p.Addr()))<<8 | uint64(uint8(p.Bits()+1)) }

// Get returns p's value.
func (m *PrefixMap) Get(p netip.Prefix) (int32, bool) {
	switch {
	case !p.Addr().Is4():
		v, ok := m.other[HashKeyOf(p)]
		return v, ok
	case m.v4 != nil:
		return m.v4.get(key4(p))
	}
	v, ok := m.big4[key4(p)]
	return v, ok
}

// Set maps p to v.
func (m *PrefixMap) Set(p netip.Prefix, v int32) {
	if !p.Addr().Is4() {
		m.other[HashKeyOf(p)] = v
		return
	}
	if m.v4 != nil && v >= packedMaxValue {
		m.big4 = make(map[uint64]int32, m.v4.n)
		m.v4.each(func(k uint64, v int32) { m.big4[k] = v })
		m.v4 = nil
	}
	if m.v4 != nil {
		m.v4.set(key4(p), v)
		return
	}
	m.big4[key4(p)] = v
}

// Del removes p.
func (m *PrefixMap) Del(p netip.Prefix) {
	switch {
	case !p.Addr().Is4():
		delete(m.other, HashKeyOf(p))
	case m.v4 != nil:
		m.v4.del(key4(p))
	default:
		delete(m.big4, key4(p))
	}
}

// Len is how many prefixes the map holds.
func (m *PrefixMap) Len() int {
	if m.v4 != nil {
		return m.v4.n + len(m.other)
	}
	return len(m.big4) + len(m.other)
}

// Heads calls fn with the first route index of every prefix, in no order.
func (m *PrefixMap) Heads(fn func(int32)) {
	if m.v4 != nil {
		m.v4.each(func(_ uint64, v int32) { fn(v) })
	}
	for _, h := range m.big4 {
		fn(h)
	}
	for _, h := range m.other {
		fn(h)
	}
}
