package index

import "net/netip"

// AddrMap maps addresses to V. IPv4 addresses, the common case, go to a
// table keyed by their 32 bits: attribution looks up every route's next hop,
// and a Go map of netip.Addr hashes 24 bytes and a pointer.
type AddrMap[V any] struct {
	v4    *table4[V]
	other map[netip.Addr]V // and IPv4 addresses past table4's capacity
}

// NewAddrMap returns an empty map.
func NewAddrMap[V any]() AddrMap[V] {
	return AddrMap[V]{v4: newTable4[V](0), other: map[netip.Addr]V{}}
}

// addr4 is an IPv4 address as a number.
func addr4(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// Get returns a's value.
func (m AddrMap[V]) Get(a netip.Addr) (V, bool) {
	if a.Is4() {
		if v, ok := m.v4.get(addr4(a)); ok || !m.v4.full() {
			return v, ok
		}
	}
	v, ok := m.other[a]
	return v, ok
}

// Set maps a to v.
func (m AddrMap[V]) Set(a netip.Addr, v V) {
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
