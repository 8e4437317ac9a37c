package validator

import "net/netip"

// prefixMap maps prefixes to the first route index of a chain. IPv4
// prefixes, keyed by address and length in 40 bits, go to a table of one
// word a slot (key and index), 16 MB for a million prefixes where a Go map
// took 38 MB and a fifth of the indexing time; an index past that word's 24
// bits moves them to a map.
type prefixMap struct {
	v4    *packedTable // nil once an index outgrew it
	big4  map[uint64]int32
	other map[pkey]int32
}

func newPrefixMap(size int) prefixMap {
	return prefixMap{v4: newPackedTable(size), other: map[pkey]int32{}}
}

// key4 is an IPv4 prefix's key: address, then length plus one (never 0).
func key4(p netip.Prefix) uint64 { return uint64(addr4(p.Addr()))<<8 | uint64(uint8(p.Bits()+1)) }

func (m *prefixMap) get(p netip.Prefix) (int32, bool) {
	switch {
	case !p.Addr().Is4():
		v, ok := m.other[keyOf(p)]
		return v, ok
	case m.v4 != nil:
		return m.v4.get(key4(p))
	}
	v, ok := m.big4[key4(p)]
	return v, ok
}

func (m *prefixMap) set(p netip.Prefix, v int32) {
	if !p.Addr().Is4() {
		m.other[keyOf(p)] = v
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

func (m *prefixMap) del(p netip.Prefix) {
	switch {
	case !p.Addr().Is4():
		delete(m.other, keyOf(p))
	case m.v4 != nil:
		m.v4.del(key4(p))
	default:
		delete(m.big4, key4(p))
	}
}

func (m *prefixMap) len() int {
	if m.v4 != nil {
		return m.v4.n + len(m.other)
	}
	return len(m.big4) + len(m.other)
}

// heads calls fn with the first route index of every prefix, in no order.
func (m *prefixMap) heads(fn func(int32)) {
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

// packedTable is a linear-probing hash table from non-zero 40-bit keys to
// values below packedMaxValue, a slot being key<<24 | value (0 is free). It
// stays at most half full; deletion shifts the probe run back.
type packedTable struct {
	slots []uint64 // len is a power of two
	shift uint     // 64 - log2(len(slots))
	n     int
}

const (
	packedValueBits = 24
	packedMaxValue  = 1 << packedValueBits
)

func newPackedTable(size int) *packedTable {
	log := uint(4)
	for 1<<log < 2*size {
		log++
	}
	return &packedTable{slots: make([]uint64, 1<<log), shift: 64 - log}
}

func (t *packedTable) home(k uint64) int { return int((k * 0x9E3779B97F4A7C15) >> t.shift) }

// find returns k's slot, or the free slot where it would go.
func (t *packedTable) find(k uint64) int {
	mask := len(t.slots) - 1
	for p := t.home(k); ; p = (p + 1) & mask {
		if s := t.slots[p]; s == 0 || s>>packedValueBits == k {
			return p
		}
	}
}

func (t *packedTable) get(k uint64) (int32, bool) {
	s := t.slots[t.find(k)]
	return int32(s & (packedMaxValue - 1)), s != 0
}

// set maps k to v (v < packedMaxValue).
func (t *packedTable) set(k uint64, v int32) {
	p := t.find(k)
	if t.slots[p] == 0 {
		if 2*(t.n+1) > len(t.slots) {
			t.grow()
			p = t.find(k)
		}
		t.n++
	}
	t.slots[p] = k<<packedValueBits | uint64(v)
}

func (t *packedTable) grow() {
	old := t.slots
	t.slots, t.shift = make([]uint64, 2*len(old)), t.shift-1
	for _, s := range old {
		if s != 0 {
			t.slots[t.find(s>>packedValueBits)] = s
		}
	}
}

func (t *packedTable) del(k uint64) {
	i := t.find(k)
	if t.slots[i] == 0 {
		return
	}
	t.n--
	mask := len(t.slots) - 1
	for j := i; ; {
		t.slots[i] = 0
		for {
			j = (j + 1) & mask
			if t.slots[j] == 0 {
				return
			}
			// The entry at j may fill the hole at i unless its home lies
			// cyclically in (i, j].
			h := t.home(t.slots[j] >> packedValueBits)
			if i <= j && (h <= i || h > j) || i > j && h <= i && h > j {
				break
			}
		}
		t.slots[i] = t.slots[j]
		i = j
	}
}

func (t *packedTable) each(fn func(k uint64, v int32)) {
	for _, s := range t.slots {
		if s != 0 {
			fn(s>>packedValueBits, int32(s&(packedMaxValue-1)))
		}
	}
}
