package rib

import (
	"encoding/binary"
	"net/netip"
	"slices"

	"github.com/routewarden/routewarden/validator"
)

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
	own.LargeCommunities = slices.Clip(slices.Clone(a.LargeCommunities))
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
	b = appendAddr(b, r.Router)
	b = appendAddr(b, r.Local)
	b = binary.BigEndian.AppendUint32(b, r.PeerASN)
	b = binary.AppendUvarint(b, uint64(len(r.ASPath)))
	for _, as := range r.ASPath {
		b = binary.BigEndian.AppendUint32(b, as)
	}
	b = appendStrings(b, r.Communities)
	b = appendStrings(b, r.LargeCommunities)
	if r.HasLocalPref {
		b = binary.BigEndian.AppendUint32(append(b, 1), r.LocalPref)
	} else {
		b = append(b, 0)
	}
	return append(b, byte(b2i(r.PostPolicy)), byte(b2i(r.Relayed)), byte(r.Unseen))
}

// appendStrings encodes a list with its length first, so that two lists in a
// row cannot be read as one.
func appendStrings(b []byte, l []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(l)))
	for _, c := range l {
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
