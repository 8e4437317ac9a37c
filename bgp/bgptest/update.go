package bgptest

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// MaxMessage is the largest BGP message without the extended-message capability.
const MaxMessage = bgp.BGP_MAX_MESSAGE_LENGTH

// Attribute flags and type codes (RFC 4271, RFC 4760).
const (
	FlagOptional   = 0x80
	FlagTransitive = 0x40
	FlagPartial    = 0x20
	FlagExtended   = 0x10

	AttrOrigin    = 1
	AttrASPath    = 2
	AttrNextHop   = 3
	AttrLocalPref = 5
	AttrCommunity = 8
	AttrMPReach   = 14
	AttrMPUnreach = 15
	AttrLarge     = 32
)

// Attrs are the path attributes of packed UPDATEs.
type Attrs struct {
	// NextHop is the IPv4 next hop (NEXT_HOP) of IPv4 prefixes; NextHop6 the
	// IPv6 next hop (in MP_REACH_NLRI) of IPv6 prefixes.
	NextHop, NextHop6 netip.Addr
	// ASPath is one AS_SEQUENCE of 4-octet ASNs (empty for iBGP); Origin is
	// 0 IGP, 1 EGP, 2 INCOMPLETE.
	ASPath []uint32
	Origin uint8
	// LocalPref, when not 0, adds LOCAL_PREF (which iBGP UPDATEs carry).
	LocalPref uint32
	// Communities (standard, ASN<<16|VALUE) and LargeCommunities
	// (GLOBAL, LOCAL1, LOCAL2), when set, add COMMUNITIES and LARGE_COMMUNITY.
	Communities      []uint32
	LargeCommunities [][3]uint32
	// AddPath encodes every NLRI with PathID (the session must have been
	// opened with Open.AddPathSend).
	AddPath bool
	PathID  uint32
}

// Attr encodes one path attribute, with the extended-length flag when needed.
func Attr(flags, typ uint8, value []byte) []byte {
	if len(value) > 255 {
		flags |= FlagExtended
	}
	if flags&FlagExtended != 0 {
		b := []byte{flags, typ, 0, 0}
		binary.BigEndian.PutUint16(b[2:], uint16(len(value)))
		return append(b, value...)
	}
	return append([]byte{flags, typ, byte(len(value))}, value...)
}

// ASPathValue is the value of an AS_PATH attribute: one AS_SEQUENCE of 4-octet ASNs.
func ASPathValue(asns []uint32) []byte {
	if len(asns) == 0 {
		return nil
	}
	v := []byte{bgp.BGP_ASPATH_ATTR_TYPE_SEQ, byte(len(asns))}
	for _, a := range asns {
		v = binary.BigEndian.AppendUint32(v, a)
	}
	return v
}

// NLRI encodes one prefix (with a 4-byte path ID first when addPath).
func NLRI(p netip.Prefix, addPath bool, pathID uint32) []byte {
	var b []byte
	if addPath {
		b = binary.BigEndian.AppendUint32(b, pathID)
	}
	b = append(b, byte(p.Bits()))
	return append(b, p.Masked().Addr().AsSlice()[:(p.Bits()+7)/8]...)
}

// Update frames an UPDATE from its three fields, lengths computed.
func Update(withdrawn, attrs, nlri []byte) []byte {
	body := binary.BigEndian.AppendUint16(nil, uint16(len(withdrawn)))
	body = append(body, withdrawn...)
	body = binary.BigEndian.AppendUint16(body, uint16(len(attrs)))
	body = append(body, attrs...)
	return Message(bgp.BGP_MSG_UPDATE, append(body, nlri...))
}

// baseAttrs are ORIGIN, AS_PATH, for IPv4 NEXT_HOP, and LOCAL_PREF and the
// communities if set.
func baseAttrs(a Attrs, v4 bool) []byte {
	b := Attr(FlagTransitive, AttrOrigin, []byte{a.Origin})
	b = append(b, Attr(FlagTransitive, AttrASPath, ASPathValue(a.ASPath))...)
	if v4 {
		b = append(b, Attr(FlagTransitive, AttrNextHop, a.NextHop.AsSlice())...)
	}
	if a.LocalPref != 0 {
		b = append(b, Attr(FlagTransitive, AttrLocalPref, binary.BigEndian.AppendUint32(nil, a.LocalPref))...)
	}
	if len(a.Communities) > 0 {
		var v []byte
		for _, c := range a.Communities {
			v = binary.BigEndian.AppendUint32(v, c)
		}
		b = append(b, Attr(FlagOptional|FlagTransitive, AttrCommunity, v)...)
	}
	if len(a.LargeCommunities) > 0 {
		var v []byte
		for _, c := range a.LargeCommunities {
			v = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(v, c[0]), c[1]), c[2])
		}
		b = append(b, Attr(FlagOptional|FlagTransitive, AttrLarge, v)...)
	}
	return b
}

// mpReach is the MP_REACH_NLRI attribute for IPv6 unicast.
func mpReach(nextHop netip.Addr, nlri []byte) []byte {
	v := []byte{0, bgp.AFI_IP6, bgp.SAFI_UNICAST, 16}
	v = append(v, nextHop.AsSlice()...)
	v = append(v, 0)
	return Attr(FlagOptional|FlagExtended, AttrMPReach, append(v, nlri...))
}

func mpUnreach(nlri []byte) []byte {
	return Attr(FlagOptional|FlagExtended, AttrMPUnreach, append([]byte{0, bgp.AFI_IP6, bgp.SAFI_UNICAST}, nlri...))
}

// split returns the IPv4 and IPv6 prefixes.
func split(prefixes []netip.Prefix) (v4, v6 []netip.Prefix) {
	for _, p := range prefixes {
		if p.Addr().Is4() {
			v4 = append(v4, p)
		} else {
			v6 = append(v6, p)
		}
	}
	return v4, v6
}

// pack groups encoded NLRI into chunks of at most room bytes.
func pack(prefixes []netip.Prefix, a Attrs, room int) [][]byte {
	var out [][]byte
	var cur []byte
	for _, p := range prefixes {
		n := NLRI(p, a.AddPath, a.PathID)
		if len(cur)+len(n) > room {
			out = append(out, cur)
			cur = nil
		}
		cur = append(cur, n...)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// PackUpdates encodes announcements of prefixes with attrs a into as few
// UPDATEs as fit in 4096 bytes each: IPv4 prefixes in the NLRI field, IPv6
// prefixes in MP_REACH_NLRI. It returns the messages, ready for Conn.Send.
func PackUpdates(prefixes []netip.Prefix, a Attrs) ([][]byte, error) {
	v4, v6 := split(prefixes)
	if len(v4) > 0 && !a.NextHop.Is4() {
		return nil, fmt.Errorf("bgptest: IPv4 prefixes need an IPv4 next hop, not %q", a.NextHop)
	}
	if len(v6) > 0 && !a.NextHop6.Is6() {
		return nil, fmt.Errorf("bgptest: IPv6 prefixes need an IPv6 next hop, not %q", a.NextHop6)
	}
	var out [][]byte
	if len(v4) > 0 {
		attrs := baseAttrs(a, true)
		for _, nlri := range pack(v4, a, MaxMessage-bgp.BGP_HEADER_LENGTH-4-len(attrs)) {
			out = append(out, Update(nil, attrs, nlri))
		}
	}
	if len(v6) > 0 {
		attrs := baseAttrs(a, false)
		room := MaxMessage - bgp.BGP_HEADER_LENGTH - 4 - len(attrs) - len(mpReach(a.NextHop6, nil))
		for _, nlri := range pack(v6, a, room) {
			out = append(out, Update(nil, append(attrs[:len(attrs):len(attrs)], mpReach(a.NextHop6, nlri)...), nil))
		}
	}
	return out, nil
}

// Withdraws encodes withdrawals of prefixes (with path ID a.PathID when
// a.AddPath), packed like PackUpdates.
func Withdraws(prefixes []netip.Prefix, a Attrs) [][]byte {
	v4, v6 := split(prefixes)
	var out [][]byte
	for _, w := range pack(v4, a, MaxMessage-bgp.BGP_HEADER_LENGTH-4) {
		out = append(out, Update(w, nil, nil))
	}
	for _, nlri := range pack(v6, a, MaxMessage-bgp.BGP_HEADER_LENGTH-4-len(mpUnreach(nil))) {
		out = append(out, Update(nil, mpUnreach(nlri), nil))
	}
	return out
}

// EndOfRIB is the End-of-RIB marker of IPv4 or IPv6 unicast (RFC 4724).
func EndOfRIB(v6 bool) []byte {
	if v6 {
		return Update(nil, mpUnreach(nil), nil)
	}
	return Update(nil, nil, nil)
}
