package bgptest

import (
	"encoding/binary"
	"net/netip"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// Kind is a way to break an UPDATE.
type Kind int

// The broken UPDATEs Broken builds. Each announces the prefix it is given,
// so a test can see whether the announcement was applied, withdrawn or ignored.
const (
	// ShortMessageLength: the header's length field is 18, less than a header.
	ShortMessageLength Kind = iota
	// OversizedMessage: a well-formed UPDATE of 4,200 bytes, past the 4096-byte
	// limit of a session without the extended-message capability.
	OversizedMessage
	// TotalAttrLengthOverrun: the total path attribute length runs past the message.
	TotalAttrLengthOverrun
	// AttrLengthOverrun: NEXT_HOP's length (200) runs past the message.
	AttrLengthOverrun
	// BadAttrFlags: ORIGIN marked optional (flags 0xC0): an attribute flags error.
	BadAttrFlags
	// InvalidOrigin: ORIGIN value 7.
	InvalidOrigin
	// TruncatedNLRI: the last NLRI says /24 and has one byte of the three.
	TruncatedNLRI
	// UnknownWellKnown: an unrecognised attribute (type 240) flagged well-known.
	UnknownWellKnown
	// MissingNextHop: IPv4 NLRI without the mandatory NEXT_HOP.
	MissingNextHop
	// MalformedASPath: an AS_SEQUENCE that claims 5 ASNs and holds 1.
	MalformedASPath
	// BadMPReach: MP_REACH_NLRI (IPv6) with a next-hop length of 5.
	BadMPReach
	// NextHopLen0 to NextHopLen3: NEXT_HOP's length says 0 to 3, and its 4
	// bytes follow anyway, so the rest is parsed out of step: the reproduction
	// of GO-2026-4736 (CVE-2026-30405, osrg/gobgp#3305).
	NextHopLen0
	NextHopLen1
	NextHopLen2
	NextHopLen3
)

// Kinds lists every Kind, in order.
var Kinds = []Kind{ShortMessageLength, OversizedMessage, TotalAttrLengthOverrun, AttrLengthOverrun, BadAttrFlags,
	InvalidOrigin, TruncatedNLRI, UnknownWellKnown, MissingNextHop, MalformedASPath, BadMPReach,
	NextHopLen0, NextHopLen1, NextHopLen2, NextHopLen3}

var kindNames = map[Kind]string{
	ShortMessageLength: "short message length", OversizedMessage: "oversized message",
	TotalAttrLengthOverrun: "total attribute length overrun", AttrLengthOverrun: "attribute length overrun",
	BadAttrFlags: "bad attribute flags", InvalidOrigin: "invalid ORIGIN", TruncatedNLRI: "truncated NLRI",
	UnknownWellKnown: "unrecognised well-known attribute", MissingNextHop: "missing NEXT_HOP",
	MalformedASPath: "malformed AS_PATH", BadMPReach: "bad MP_REACH_NLRI",
	NextHopLen0: "NEXT_HOP length 0", NextHopLen1: "NEXT_HOP length 1", NextHopLen2: "NEXT_HOP length 2",
	NextHopLen3: "NEXT_HOP length 3",
}

func (k Kind) String() string { return kindNames[k] }

// Broken returns an UPDATE announcing p (IPv4; IPv6 for BadMPReach) with
// attrs a, broken as k says.
func Broken(k Kind, p netip.Prefix, a Attrs) []byte {
	origin := Attr(FlagTransitive, AttrOrigin, []byte{a.Origin})
	asPath := Attr(FlagTransitive, AttrASPath, ASPathValue(a.ASPath))
	nextHop := Attr(FlagTransitive, AttrNextHop, a.NextHop.AsSlice())
	nlri := NLRI(p, a.AddPath, a.PathID)
	join := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	switch k {
	case ShortMessageLength:
		m := Update(nil, join(origin, asPath, nextHop), nlri)
		binary.BigEndian.PutUint16(m[16:18], bgp.BGP_HEADER_LENGTH-1)
		return m
	case OversizedMessage:
		// p, then /32s from 198.18.0.0/15 (benchmarking space) up to 4,200 bytes.
		attrs := join(origin, asPath, nextHop)
		for i := 0; bgp.BGP_HEADER_LENGTH+4+len(attrs)+len(nlri) < 4200; i++ {
			fill := netip.PrefixFrom(netip.AddrFrom4([4]byte{198, 18, byte(i >> 8), byte(i)}), 32)
			nlri = append(nlri, NLRI(fill, a.AddPath, a.PathID)...)
		}
		return Update(nil, attrs, nlri)
	case TotalAttrLengthOverrun:
		m := Update(nil, join(origin, asPath, nextHop), nlri)
		binary.BigEndian.PutUint16(m[bgp.BGP_HEADER_LENGTH+2:], uint16(len(m)))
		return m
	case AttrLengthOverrun:
		bad := append([]byte{FlagTransitive, AttrNextHop, 200}, a.NextHop.AsSlice()...)
		return Update(nil, join(origin, asPath, bad), nlri)
	case BadAttrFlags:
		return Update(nil, join(Attr(FlagOptional|FlagTransitive, AttrOrigin, []byte{a.Origin}), asPath, nextHop), nlri)
	case InvalidOrigin:
		return Update(nil, join(Attr(FlagTransitive, AttrOrigin, []byte{7}), asPath, nextHop), nlri)
	case TruncatedNLRI:
		return Update(nil, join(origin, asPath, nextHop), append(nlri, 24, 10))
	case UnknownWellKnown:
		return Update(nil, join(origin, asPath, nextHop, Attr(FlagTransitive, 240, []byte{1, 2, 3, 4})), nlri)
	case MissingNextHop:
		return Update(nil, join(origin, asPath), nlri)
	case MalformedASPath:
		v := binary.BigEndian.AppendUint32([]byte{bgp.BGP_ASPATH_ATTR_TYPE_SEQ, 5}, 65010)
		return Update(nil, join(origin, Attr(FlagTransitive, AttrASPath, v), nextHop), nlri)
	case BadMPReach:
		v := append([]byte{0, bgp.AFI_IP6, bgp.SAFI_UNICAST, 5}, a.NextHop6.AsSlice()[:5]...)
		v = append(v, 0)
		v = append(v, NLRI(p, a.AddPath, a.PathID)...)
		return Update(nil, join(origin, asPath, Attr(FlagOptional, AttrMPReach, v)), nil)
	case NextHopLen0, NextHopLen1, NextHopLen2, NextHopLen3:
		bad := append([]byte{FlagTransitive, AttrNextHop, byte(k - NextHopLen0)}, a.NextHop.AsSlice()...)
		return Update(nil, join(origin, asPath, bad), nlri)
	}
	return nil
}
