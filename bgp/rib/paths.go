package bgp

import (
	"encoding/binary"
	"net/netip"
	"slices"

	"github.com/routewarden/routewarden/validator"
)

// The store keeps paths compactly: a peer's paths are two maps keyed by the
// prefix's bytes, length and ADD-PATH ID (12 and 24 bytes), whose value is an
// index into a table of interned attribute sets (next hop, peer, AS path,
// communities…) shared by every prefix announced with the same attributes.
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

// attrSet is an interned set of the attributes of a route: every route
// rebuilt from its paths shares attrs.
type attrSet struct {
	attrs *validator.Attributes
	key   string
	refs  int
}

// interner shares attribute sets between paths, counting references so that a
// set no path uses any more is freed.
type interner struct {
	byKey map[string]uint32
	sets  []attrSet
	free  []uint32
	buf   []byte
}

func newInterner() *interner { return &interner{byKey: map[string]uint32{}} }

// ref returns the index of r's attribute set (created if new) and counts n
// more references to it.
func (in *interner) ref(a *validator.Attributes, n int) uint32 {
	in.buf = attrKey(in.buf[:0], a)
	if i, ok := in.byKey[string(in.buf)]; ok {
		in.sets[i].refs += n
		return i
	}
	own := *a // the caller's slices are its own to reuse
	own.ASPath, own.Communities = slices.Clip(slices.Clone(a.ASPath)), slices.Clip(slices.Clone(a.Communities))
	set := attrSet{attrs: &own, key: string(in.buf), refs: n}
	var i uint32
	if n := len(in.free); n > 0 {
		i, in.free = in.free[n-1], in.free[:n-1]
		in.sets[i] = set
	} else {
		i = uint32(len(in.sets))
		in.sets = append(in.sets, set)
	}
	in.byKey[set.key] = i
	return i
}

// unref drops one reference to set i, freeing the set at zero.
func (in *interner) unref(i uint32) {
	s := &in.sets[i]
	if s.refs--; s.refs > 0 {
		return
	}
	delete(in.byKey, s.key)
	*s = attrSet{}
	in.free = append(in.free, i)
}

// route rebuilds a route from a path.
func (in *interner) route(p netip.Prefix, id, v uint32) validator.Route {
	return validator.Route{Prefix: p, Attributes: in.sets[v&^staleBit].attrs, PathID: id, Stale: v&staleBit != 0}
}

// attrKey encodes every attribute (TestAttrKeyCoversRoute fails when
// validator.Attributes gains a field).
func attrKey(b []byte, r *validator.Attributes) []byte {
	b = appendAddr(b, r.NextHop)
	b = appendAddr(b, r.Peer)
	b = appendAddr(b, r.RouterID)
	b = binary.BigEndian.AppendUint32(b, r.PeerASN)
	b = binary.AppendUvarint(b, uint64(len(r.ASPath)))
	for _, as := range r.ASPath {
		b = binary.BigEndian.AppendUint32(b, as)
	}
	for _, c := range r.Communities {
		b = binary.AppendUvarint(b, uint64(len(c)))
		b = append(b, c...)
	}
	return b
}

func appendAddr(b []byte, a netip.Addr) []byte {
	b = append(b, byte(a.BitLen()), byte(len(a.Zone())))
	b, _ = a.AppendBinary(b) // never fails
	return b
}

// UpdatePaths applies one BGP UPDATE of a direct peer: every announced prefix
// gets the attributes attrs.
func (s *Store) UpdatePaths(peer netip.Addr, attrs *validator.Attributes, announced, withdrawn []NLRI) {
	s.updateKey(peerKey{addr: peer}, attrs, announced, withdrawn)
}

func (s *Store) updateKey(k peerKey, attrs *validator.Attributes, announced, withdrawn []NLRI) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entryKey(k)
	for _, n := range withdrawn {
		s.withdraw(e, n.Prefix, n.PathID)
	}
	if len(announced) > 0 {
		set := s.attrs.ref(attrs, len(announced))
		for _, n := range announced {
			s.announce(e, n.Prefix, n.PathID, set)
		}
	}
	e.info.Routes = e.paths.len()
	s.bump()
}

// DropFamily removes a peer's paths of one address family (IPv6 or IPv4).
func (s *Store) DropFamily(peer netip.Addr, isV6 bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.peers[peerKey{addr: peer}]
	if !ok {
		return
	}
	s.drop(e, func(p netip.Prefix, _ bool) bool { return p.Addr().Is6() == isV6 })
	s.dropStaged(e, isV6)
	s.bump()
}
