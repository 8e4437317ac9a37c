package wire

import (
	"fmt"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// Irregularities. Decode reads the attributes routewarden uses and skips the
// rest, which is right for a well-formed UPDATE. A malformed one a BGP speaker
// handles by RFC 7606 (treat-as-withdraw, attribute discard), and an AS path
// that needs AS4_PATH merged in (RFC 6793), it may read differently; Decode
// notes the first such thing in Update.Irregular, so that a caller who must
// agree with the speaker (the collector with GoBGP) can decode that UPDATE
// the speaker's way. Nothing well-formed is irregular.

// checked are the attributes whose form checkAttr knows; GoBGP knows more
// (AS4_PATH, AIGP, PREFIX_SID, ...), which make an UPDATE irregular.
var checked = [33]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true, 9: true, 10: true,
	14: true, 15: true, 16: true, 32: true}

// attrLen checks an attribute's length: exact when > 0, a multiple of -n when < 0.
var attrLen = [33]int{1: 1, 3: 4, 4: 4, 5: 4, 6: 0, 8: -4, 9: 4, 10: -4, 16: -8, 32: -12}

const (
	attrOrigin     = 1
	attrAtomic     = 6
	attrAggr       = 7
	attrAS4Path    = 17
	attrAS4Aggr    = 18
	flagOptional   = 0x80
	flagTransitive = 0x40
	flagPartial    = 0x20
	flagExtended   = 0x10
)

// checkAttr notes an attribute that is not in its regular form.
func (u *Update) checkAttr(flags, typ uint8, v []byte) {
	if u.Irregular != "" {
		return
	}
	if u.seen[typ/64]&(1<<(typ%64)) != 0 {
		u.Irregular = fmt.Sprintf("attribute %d appears twice", typ)
		return
	}
	u.seen[typ/64] |= 1 << (typ % 64)
	partial := flags&flagPartial != 0
	f, known := gobgp.PathAttrFlags[gobgp.BGPAttrType(typ)]
	switch {
	case !known:
		// GoBGP keeps an unknown optional attribute as it is.
		if flags&flagOptional == 0 || partial && flags&flagTransitive == 0 {
			u.Irregular = fmt.Sprintf("attribute %d is unknown, with flags %#x", typ, flags)
		}
		return
	case int(typ) >= len(checked) || !checked[typ]:
		u.Irregular = fmt.Sprintf("attribute %d", typ)
		return
	}
	// The unused low bits must be 0 too; Partial only on optional transitive ones.
	if want := uint8(f); flags&^(flagPartial|flagExtended) != want || partial && want != 0xC0 {
		u.Irregular = fmt.Sprintf("attribute %d has flags %#x, want %#x", typ, flags, want)
		return
	}
	n := len(v)
	switch want := attrLen[typ]; {
	case want > 0 && n != want, want < 0 && n%-want != 0, typ == attrAtomic && n != 0:
		u.Irregular = fmt.Sprintf("attribute %d has %d bytes", typ, n)
	case typ == attrAggr && n != 6 && n != 8:
		u.Irregular = fmt.Sprintf("attribute %d has %d bytes", typ, n)
	case typ == attrOrigin && v[0] > 2:
		u.Irregular = fmt.Sprintf("ORIGIN %d", v[0])
	case typ == attrNextHop && (v[0] == 0 || v[0] >= 224 || v[0] == 127):
		u.Irregular = fmt.Sprintf("NEXT_HOP %d.%d.%d.%d is not a host address", v[0], v[1], v[2], v[3])
	}
}

// checkMandatory notes a missing well-known mandatory attribute (RFC 4271
// §5: ORIGIN and AS_PATH with any NLRI, NEXT_HOP with IPv4 NLRI outside
// MP_REACH).
func (u *Update) checkMandatory() {
	if u.Irregular != "" || len(u.Announced) == 0 && !u.has(attrMPReach) {
		return
	}
	for _, t := range []uint8{attrOrigin, attrASPath, attrNextHop} {
		if t == attrNextHop && len(u.Announced) == 0 {
			continue
		}
		if !u.has(t) {
			u.Irregular = fmt.Sprintf("mandatory attribute %d is missing", t)
			return
		}
	}
}

func (u *Update) has(typ uint8) bool { return u.seen[typ/64]&(1<<(typ%64)) != 0 }
