package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
)

// The AFIs routewarden decodes (unicast SAFI only).
const (
	AFIIPv4     = 1
	AFIIPv6     = 2
	safiUnicast = 1

	attrASPath      = 2
	attrNextHop     = 3
	attrLocalPref   = 5
	attrCommunities = 8
	attrMPReach     = 14
	attrMPUnreach   = 15
	attrLarge       = 32
)

// ErrTruncated is wrapped by every error about a field cut short.
var ErrTruncated = errors.New("truncated")

// Update is one decoded UPDATE; its slices are reused by the next Decode.
type Update struct {
	Withdrawn, Announced     []NLRI // IPv4, in the classic fields
	MPWithdrawn, MPAnnounced []NLRI // MP_REACH / MP_UNREACH, IPv4 or IPv6 unicast
	NextHop, MPNextHop       netip.Addr
	ASPath                   []uint32
	// Communities are the standard communities, "ASN:VALUE".
	Communities []string
	// LargeCommunities are the large communities (RFC 8092), "GLOBAL:LOCAL1:LOCAL2".
	LargeCommunities []string
	// LocalPref is LOCAL_PREF, when HasLocalPref.
	LocalPref    uint32
	HasLocalPref bool
	// EoR lists End-of-RIB markers ("ipv4-unicast", "ipv6-unicast").
	EoR []string
	// OtherFamilies counts MP attributes of families routewarden ignores.
	OtherFamilies int
	// Irregular names what a BGP speaker may read differently (irregular.go).
	Irregular string
	seen      [4]uint64 // the attribute types met
}

// NLRI is one announced or withdrawn prefix with its ADD-PATH ID.
type NLRI struct {
	Prefix netip.Prefix
	PathID uint32
}

func (u *Update) reset() {
	u.Withdrawn, u.Announced = u.Withdrawn[:0], u.Announced[:0]
	u.MPWithdrawn, u.MPAnnounced = u.MPWithdrawn[:0], u.MPAnnounced[:0]
	u.NextHop, u.MPNextHop = netip.Addr{}, netip.Addr{}
	u.ASPath, u.Communities, u.LargeCommunities, u.EoR = u.ASPath[:0], nil, nil, u.EoR[:0]
	u.LocalPref, u.HasLocalPref = 0, false
	u.OtherFamilies, u.Irregular, u.seen = 0, "", [4]uint64{}
}

// TreatAsWithdraw turns the UPDATE's announcements into withdrawals (RFC 7606
// treat-as-withdraw); what else it said (End-of-RIB, other families) is dropped.
func (u *Update) TreatAsWithdraw() {
	u.Withdrawn = append(u.Withdrawn, u.Announced...)
	u.MPWithdrawn = append(u.MPWithdrawn, u.MPAnnounced...)
	u.Announced, u.MPAnnounced, u.EoR, u.OtherFamilies = u.Announced[:0], u.MPAnnounced[:0], u.EoR[:0], 0
}

// Community is a standard community in its "ASN:VALUE" text form.
func Community(c uint32) string { return strconv.Itoa(int(c>>16)) + ":" + strconv.Itoa(int(c&0xffff)) }

// LargeCommunity is a large community in its "GLOBAL:LOCAL1:LOCAL2" text form.
func LargeCommunity(global, local1, local2 uint32) string {
	return strconv.FormatUint(uint64(global), 10) + ":" + strconv.FormatUint(uint64(local1), 10) + ":" +
		strconv.FormatUint(uint64(local2), 10)
}

// Options say how the peer's UPDATEs are encoded.
type Options struct {
	// AddPathV4 and AddPathV6: the family's NLRI carry ADD-PATH IDs.
	AddPathV4, AddPathV6 bool
	// TwoByteAS: the AS path has 2-octet ASNs (no 4-octet AS capability).
	TwoByteAS bool
}

func (o Options) addPath(afi uint16) bool {
	if afi == AFIIPv6 {
		return o.AddPathV6
	}
	return o.AddPathV4
}

// marker is a BGP header's marker: 16 bytes of ones.
var marker = [16]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// Decode parses a BGP message (with its 19-byte header) that must be an UPDATE.
func (u *Update) Decode(msg []byte, o Options) error {
	u.reset()
	if len(msg) < 19 {
		return fmt.Errorf("BGP message of %d bytes: %w", len(msg), ErrTruncated)
	}
	if n := int(binary.BigEndian.Uint16(msg[16:18])); n != len(msg) {
		return fmt.Errorf("BGP message length %d, but %d bytes carried", n, len(msg))
	}
	if msg[18] != 2 {
		return fmt.Errorf("BGP message type %d in Route Monitoring, want UPDATE (2)", msg[18])
	}
	if !bytes.Equal(msg[:16], marker[:]) {
		// GoBGP v4 resets a session over it (RFC 4271 §6.1); read it anyway.
		u.Irregular = "marker is not all ones"
	}
	b := msg[19:]
	wlen, b, err := take16(b)
	if err != nil {
		return fmt.Errorf("withdrawn routes length: %w", err)
	}
	if wlen > len(b) {
		return fmt.Errorf("withdrawn routes: %w", ErrTruncated)
	}
	if u.Withdrawn, err = appendNLRI(u.Withdrawn, b[:wlen], AFIIPv4, o.AddPathV4); err != nil {
		return fmt.Errorf("withdrawn routes: %w", err)
	}
	alen, b, err := take16(b[wlen:])
	if err != nil {
		return fmt.Errorf("path attributes length: %w", err)
	}
	if alen > len(b) {
		return fmt.Errorf("path attributes: %w", ErrTruncated)
	}
	if err := u.attributes(b[:alen], o); err != nil {
		// The prefixes still count, for whoever treats the UPDATE as withdraw.
		u.Announced, _ = appendNLRI(u.Announced, b[alen:], AFIIPv4, o.AddPathV4)
		return err
	}
	if u.Announced, err = appendNLRI(u.Announced, b[alen:], AFIIPv4, o.AddPathV4); err != nil {
		return fmt.Errorf("NLRI: %w", err)
	}
	if wlen == 0 && alen == 0 && len(b) == 0 {
		u.EoR = append(u.EoR, "ipv4-unicast")
	}
	u.checkMandatory()
	return nil
}

func (u *Update) attributes(b []byte, o Options) error {
	for len(b) > 0 {
		if len(b) < 3 {
			return fmt.Errorf("path attribute header: %w", ErrTruncated)
		}
		flags, typ := b[0], b[1]
		var n int
		if flags&0x10 != 0 {
			if len(b) < 4 {
				return fmt.Errorf("path attribute %d header: %w", typ, ErrTruncated)
			}
			n, b = int(binary.BigEndian.Uint16(b[2:4])), b[4:]
		} else {
			n, b = int(b[2]), b[3:]
		}
		if n > len(b) {
			return fmt.Errorf("path attribute %d: %d bytes announced, %d left: %w", typ, n, len(b), ErrTruncated)
		}
		v := b[:n]
		b = b[n:]
		u.checkAttr(flags, typ, v)
		var err error
		switch typ {
		case attrASPath:
			err = u.decodeASPath(v, o.TwoByteAS)
		case attrNextHop:
			if n != 4 {
				err = fmt.Errorf("%d bytes, want 4", n)
				break
			}
			u.NextHop = netip.AddrFrom4([4]byte(v))
		case attrCommunities:
			if n%4 != 0 {
				err = fmt.Errorf("%d bytes, not a multiple of 4", n)
			}
			for i := 0; i+4 <= n; i += 4 {
				c := binary.BigEndian.Uint32(v[i:])
				u.Communities = append(u.Communities, Community(c))
			}
		case attrLocalPref:
			if n != 4 {
				err = fmt.Errorf("%d bytes, want 4", n)
				break
			}
			u.LocalPref, u.HasLocalPref = binary.BigEndian.Uint32(v), true
		case attrLarge:
			if n%12 != 0 {
				err = fmt.Errorf("%d bytes, not a multiple of 12", n)
			}
			for i := 0; i+12 <= n; i += 12 {
				u.LargeCommunities = append(u.LargeCommunities, LargeCommunity(binary.BigEndian.Uint32(v[i:]),
					binary.BigEndian.Uint32(v[i+4:]), binary.BigEndian.Uint32(v[i+8:])))
			}
		case attrMPReach:
			err = u.decodeMPReach(v, o)
		case attrMPUnreach:
			err = u.decodeMPUnreach(v, o)
		}
		if err != nil {
			return fmt.Errorf("path attribute %d: %w", typ, err)
		}
	}
	return nil
}

func (u *Update) decodeASPath(v []byte, twoByte bool) error {
	size := 4
	if twoByte {
		size = 2
	}
	for len(v) > 0 {
		if len(v) < 2 {
			return fmt.Errorf("segment header: %w", ErrTruncated)
		}
		if t := v[0]; t != 1 && t != 2 && u.Irregular == "" {
			u.Irregular = fmt.Sprintf("AS_PATH segment type %d", t)
		}
		n := int(v[1]) * size
		v = v[2:]
		if n > len(v) {
			return fmt.Errorf("segment: %w", ErrTruncated)
		}
		for i := 0; i < n; i += size {
			if twoByte {
				u.ASPath = append(u.ASPath, uint32(binary.BigEndian.Uint16(v[i:])))
			} else {
				u.ASPath = append(u.ASPath, binary.BigEndian.Uint32(v[i:]))
			}
		}
		v = v[n:]
	}
	return nil
}

// appendNLRI decodes a list of prefixes (each after its path ID with ADD-PATH).
func appendNLRI(out []NLRI, b []byte, afi uint16, addPath bool) ([]NLRI, error) {
	maxBits := 32
	if afi == AFIIPv6 {
		maxBits = 128
	}
	for len(b) > 0 {
		var id uint32
		if addPath {
			if len(b) < 5 {
				return out, fmt.Errorf("path ID: %w", ErrTruncated)
			}
			id, b = binary.BigEndian.Uint32(b), b[4:]
		}
		bits := int(b[0])
		n := (bits + 7) / 8
		if bits > maxBits {
			return out, fmt.Errorf("prefix length %d", bits)
		}
		if 1+n > len(b) {
			return out, fmt.Errorf("prefix: %w", ErrTruncated)
		}
		var a netip.Addr
		if afi == AFIIPv6 {
			var raw [16]byte
			copy(raw[:], b[1:1+n])
			a = netip.AddrFrom16(raw)
		} else {
			var raw [4]byte
			copy(raw[:], b[1:1+n])
			a = netip.AddrFrom4(raw)
		}
		p := netip.PrefixFrom(a, bits)
		if bits%8 != 0 {
			p = p.Masked()
		}
		out = append(out, NLRI{Prefix: p, PathID: id})
		b = b[1+n:]
	}
	return out, nil
}

// take16 reads a 2-byte length.
func take16(b []byte) (int, []byte, error) {
	if len(b) < 2 {
		return 0, b, ErrTruncated
	}
	return int(binary.BigEndian.Uint16(b)), b[2:], nil
}
