package rib

import (
	"encoding/binary"
	"net/netip"
)

// The store keeps paths compactly: a peer's paths are two maps keyed by the
// prefix's bytes, length and ADD-PATH ID (12 and 24 bytes), whose value is an
// index into a table of interned attribute sets (next hop, peer, AS path,
// communities…; attrs.go) shared by every prefix announced with the same
// attributes.
// A path costs a map slot of 16 or 28 bytes plus the map's spare room; a
// validator.Route is only built when a snapshot is taken.

// v4Key is an IPv4 path: the address, the prefix length and the ADD-PATH ID
// in 9 bytes. A byte array hashes in one call where a struct with padding
// hashes field by field (a third of the cost of storing an initial table).
type v4Key [9]byte

func newV4Key(addr [4]byte, bits uint8, id uint32) v4Key {
	return v4Key{addr[0], addr[1], addr[2], addr[3], bits, byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)}
}

func (k v4Key) addr() [4]byte { return [4]byte(k[:4]) }
func (k v4Key) bits() uint8   { return k[4] }
func (k v4Key) id() uint32    { return binary.BigEndian.Uint32(k[5:]) }

type v6Key struct {
	addr [16]byte
	id   uint32
	bits uint8
}

// staleBit marks a path kept by graceful restart; the other bits are the
// attribute set's index.
const staleBit = 1 << 31

// pathTable is one peer's paths.
type pathTable struct {
	v4    map[v4Key]uint32
	v6    map[v6Key]uint32
	other map[pathKey]uint32 // invalid prefixes, kept as given
}

func newPathTable() pathTable {
	return pathTable{v4: map[v4Key]uint32{}, v6: map[v6Key]uint32{}}
}

func (t *pathTable) len() int { return len(t.v4) + len(t.v6) + len(t.other) }

// split moves the paths of one address family out of t, into a table of their own.
func (t *pathTable) split(isV6 bool) pathTable {
	part := newPathTable()
	if isV6 {
		part.v6, t.v6 = t.v6, part.v6
	} else {
		part.v4, t.v4 = t.v4, part.v4
	}
	for k, v := range t.other {
		if k.prefix.Addr().Is6() == isV6 {
			if part.other == nil {
				part.other = map[pathKey]uint32{}
			}
			part.other[k] = v
			delete(t.other, k)
		}
	}
	return part
}

// adopt takes over from's paths of each address family t has no path of (a
// map moves, nothing is copied) and returns them as a table of their own;
// the rest stays in from.
func (t *pathTable) adopt(from *pathTable) pathTable {
	var moved pathTable
	if len(t.v4) == 0 {
		t.v4, from.v4 = from.v4, t.v4
		moved.v4 = t.v4
	}
	if len(t.v6) == 0 {
		t.v6, from.v6 = from.v6, t.v6
		moved.v6 = t.v6
	}
	return moved
}

// put stores a path and returns the value it replaced (ok false when none).
func (t *pathTable) put(p netip.Prefix, id, v uint32) (old uint32, ok bool) {
	a := p.Addr()
	switch {
	case p.IsValid() && a.Is4():
		k := newV4Key(a.As4(), uint8(p.Bits()), id)
		old, ok = t.v4[k]
		t.v4[k] = v
	case p.IsValid() && a.Is6() && a.Zone() == "":
		k := v6Key{addr: a.As16(), bits: uint8(p.Bits()), id: id}
		old, ok = t.v6[k]
		t.v6[k] = v
	default:
		if t.other == nil {
			t.other = map[pathKey]uint32{}
		}
		k := pathKey{p, id}
		old, ok = t.other[k]
		t.other[k] = v
	}
	return old, ok
}

// get returns a path's value (ok false when there is none).
func (t *pathTable) get(p netip.Prefix, id uint32) (v uint32, ok bool) {
	a := p.Addr()
	switch {
	case p.IsValid() && a.Is4():
		v, ok = t.v4[newV4Key(a.As4(), uint8(p.Bits()), id)]
	case p.IsValid() && a.Is6() && a.Zone() == "":
		v, ok = t.v6[v6Key{addr: a.As16(), bits: uint8(p.Bits()), id: id}]
	default:
		v, ok = t.other[pathKey{p, id}]
	}
	return v, ok
}

// del removes a path and returns its value (ok false when there was none).
func (t *pathTable) del(p netip.Prefix, id uint32) (old uint32, ok bool) {
	a := p.Addr()
	switch {
	case p.IsValid() && a.Is4():
		k := newV4Key(a.As4(), uint8(p.Bits()), id)
		if old, ok = t.v4[k]; ok {
			delete(t.v4, k)
		}
	case p.IsValid() && a.Is6() && a.Zone() == "":
		k := v6Key{addr: a.As16(), bits: uint8(p.Bits()), id: id}
		if old, ok = t.v6[k]; ok {
			delete(t.v6, k)
		}
	default:
		k := pathKey{p, id}
		if old, ok = t.other[k]; ok {
			delete(t.other, k)
		}
	}
	return old, ok
}

// each calls f with every path; f returns the new value, or false to drop it.
func (t *pathTable) each(f func(p netip.Prefix, id uint32, v uint32) (uint32, bool)) {
	for k, v := range t.v4 {
		p := netip.PrefixFrom(netip.AddrFrom4(k.addr()), int(k.bits()))
		if nv, keep := f(p, k.id(), v); !keep {
			delete(t.v4, k)
		} else if nv != v {
			t.v4[k] = nv
		}
	}
	for k, v := range t.v6 {
		p := netip.PrefixFrom(netip.AddrFrom16(k.addr), int(k.bits))
		if nv, keep := f(p, k.id, v); !keep {
			delete(t.v6, k)
		} else if nv != v {
			t.v6[k] = nv
		}
	}
	for k, v := range t.other {
		if nv, keep := f(k.prefix, k.id, v); !keep {
			delete(t.other, k)
		} else if nv != v {
			t.other[k] = nv
		}
	}
}
