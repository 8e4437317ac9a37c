package bmp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"strconv"

	"github.com/routewarden/routewarden/bgp"
)

// The fast path: Route Monitoring carries one BGP UPDATE, and routewarden only
// needs its unicast prefixes, next hop, AS path and communities. Decoding them
// here, into buffers reused from message to message, is several times faster
// than GoBGP's generic decoding (BenchmarkDecodeUpdate), which allocates an
// object per prefix and per attribute. GoBGP still decodes every other BMP
// message, and the fuzz target checks both decoders agree.

const (
	afiIPv4     = 1
	afiIPv6     = 2
	safiUnicast = 1

	attrASPath      = 2
	attrNextHop     = 3
	attrCommunities = 8
	attrMPReach     = 14
	attrMPUnreach   = 15
)

var errTruncated = errors.New("truncated")

// update is one decoded UPDATE; its slices are reused by the next decode.
type update struct {
	withdrawn, announced     []bgp.NLRI // IPv4, in the classic fields
	mpWithdrawn, mpAnnounced []bgp.NLRI // MP_REACH / MP_UNREACH, IPv4 or IPv6 unicast
	nextHop, mpNextHop       netip.Addr
	asPath                   []uint32
	communities              []string
	// eor lists End-of-RIB markers ("ipv4-unicast", "ipv6-unicast").
	eor []string
	// otherFamilies counts MP attributes of families routewarden ignores.
	otherFamilies int
}

func (u *update) reset() {
	u.withdrawn, u.announced = u.withdrawn[:0], u.announced[:0]
	u.mpWithdrawn, u.mpAnnounced = u.mpWithdrawn[:0], u.mpAnnounced[:0]
	u.nextHop, u.mpNextHop = netip.Addr{}, netip.Addr{}
	u.asPath, u.communities, u.eor = u.asPath[:0], nil, u.eor[:0]
	u.otherFamilies = 0
}

// decodeOptions say how the peer's UPDATEs are encoded.
type decodeOptions struct {
	addPathV4, addPathV6 bool
	twoByteAS            bool
}

func (o decodeOptions) addPath(afi uint16) bool {
	if afi == afiIPv6 {
		return o.addPathV6
	}
	return o.addPathV4
}

// decode parses a BGP message that must be an UPDATE.
func (u *update) decode(msg []byte, o decodeOptions) error {
	u.reset()
	if len(msg) < 19 {
		return fmt.Errorf("BGP message of %d bytes: %w", len(msg), errTruncated)
	}
	if n := int(binary.BigEndian.Uint16(msg[16:18])); n != len(msg) {
		return fmt.Errorf("BGP message length %d, but %d bytes carried", n, len(msg))
	}
	if msg[18] != 2 {
		return fmt.Errorf("BGP message type %d in Route Monitoring, want UPDATE (2)", msg[18])
	}
	b := msg[19:]
	wlen, b, err := take16(b)
	if err != nil {
		return fmt.Errorf("withdrawn routes length: %w", err)
	}
	if wlen > len(b) {
		return fmt.Errorf("withdrawn routes: %w", errTruncated)
	}
	if u.withdrawn, err = appendNLRI(u.withdrawn, b[:wlen], afiIPv4, o.addPathV4); err != nil {
		return fmt.Errorf("withdrawn routes: %w", err)
	}
	alen, b, err := take16(b[wlen:])
	if err != nil {
		return fmt.Errorf("path attributes length: %w", err)
	}
	if alen > len(b) {
		return fmt.Errorf("path attributes: %w", errTruncated)
	}
	if err := u.attributes(b[:alen], o); err != nil {
		return err
	}
	if u.announced, err = appendNLRI(u.announced, b[alen:], afiIPv4, o.addPathV4); err != nil {
		return fmt.Errorf("NLRI: %w", err)
	}
	if wlen == 0 && alen == 0 && len(b) == 0 {
		u.eor = append(u.eor, "ipv4-unicast")
	}
	return nil
}

func (u *update) attributes(b []byte, o decodeOptions) error {
	for len(b) > 0 {
		if len(b) < 3 {
			return fmt.Errorf("path attribute header: %w", errTruncated)
		}
		flags, typ := b[0], b[1]
		var n int
		if flags&0x10 != 0 {
			if len(b) < 4 {
				return fmt.Errorf("path attribute %d header: %w", typ, errTruncated)
			}
			n, b = int(binary.BigEndian.Uint16(b[2:4])), b[4:]
		} else {
			n, b = int(b[2]), b[3:]
		}
		if n > len(b) {
			return fmt.Errorf("path attribute %d: %d bytes announced, %d left: %w", typ, n, len(b), errTruncated)
		}
		v := b[:n]
		b = b[n:]
		var err error
		switch typ {
		case attrASPath:
			err = u.decodeASPath(v, o.twoByteAS)
		case attrNextHop:
			if n != 4 {
				err = fmt.Errorf("%d bytes, want 4", n)
				break
			}
			u.nextHop = netip.AddrFrom4([4]byte(v))
		case attrCommunities:
			if n%4 != 0 {
				err = fmt.Errorf("%d bytes, not a multiple of 4", n)
			}
			for i := 0; i+4 <= n; i += 4 {
				c := binary.BigEndian.Uint32(v[i:])
				u.communities = append(u.communities, strconv.Itoa(int(c>>16))+":"+strconv.Itoa(int(c&0xffff)))
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

func (u *update) decodeASPath(v []byte, twoByte bool) error {
	size := 4
	if twoByte {
		size = 2
	}
	for len(v) > 0 {
		if len(v) < 2 {
			return fmt.Errorf("segment header: %w", errTruncated)
		}
		n := int(v[1]) * size
		v = v[2:]
		if n > len(v) {
			return fmt.Errorf("segment: %w", errTruncated)
		}
		for i := 0; i < n; i += size {
			if twoByte {
				u.asPath = append(u.asPath, uint32(binary.BigEndian.Uint16(v[i:])))
			} else {
				u.asPath = append(u.asPath, binary.BigEndian.Uint32(v[i:]))
			}
		}
		v = v[n:]
	}
	return nil
}

func (u *update) decodeMPReach(v []byte, o decodeOptions) error {
	if len(v) < 5 {
		return errTruncated
	}
	afi, safi, nhLen := binary.BigEndian.Uint16(v), v[2], int(v[3])
	if len(v) < 5+nhLen {
		return fmt.Errorf("next hop: %w", errTruncated)
	}
	if (afi != afiIPv4 && afi != afiIPv6) || safi != safiUnicast {
		u.otherFamilies++
		return nil
	}
	nh := v[4 : 4+nhLen]
	switch nhLen {
	case 4:
		u.mpNextHop = netip.AddrFrom4([4]byte(nh))
	case 16, 32: // global, then link-local
		u.mpNextHop = netip.AddrFrom16([16]byte(nh[:16])).Unmap()
	default:
		return fmt.Errorf("next hop of %d bytes", nhLen)
	}
	var err error
	u.mpAnnounced, err = appendNLRI(u.mpAnnounced, v[5+nhLen:], afi, o.addPath(afi))
	return err
}

func (u *update) decodeMPUnreach(v []byte, o decodeOptions) error {
	if len(v) < 3 {
		return errTruncated
	}
	afi, safi := binary.BigEndian.Uint16(v), v[2]
	if (afi != afiIPv4 && afi != afiIPv6) || safi != safiUnicast {
		u.otherFamilies++
		return nil
	}
	if len(v) == 3 {
		u.eor = append(u.eor, familyName(afi))
		return nil
	}
	var err error
	u.mpWithdrawn, err = appendNLRI(u.mpWithdrawn, v[3:], afi, o.addPath(afi))
	return err
}

func familyName(afi uint16) string {
	if afi == afiIPv6 {
		return "ipv6-unicast"
	}
	return "ipv4-unicast"
}

// appendNLRI decodes a list of prefixes (each after its path ID with ADD-PATH).
func appendNLRI(out []bgp.NLRI, b []byte, afi uint16, addPath bool) ([]bgp.NLRI, error) {
	maxBits := 32
	if afi == afiIPv6 {
		maxBits = 128
	}
	for len(b) > 0 {
		var id uint32
		if addPath {
			if len(b) < 5 {
				return out, fmt.Errorf("path ID: %w", errTruncated)
			}
			id, b = binary.BigEndian.Uint32(b), b[4:]
		}
		bits := int(b[0])
		n := (bits + 7) / 8
		if bits > maxBits {
			return out, fmt.Errorf("prefix length %d", bits)
		}
		if 1+n > len(b) {
			return out, fmt.Errorf("prefix: %w", errTruncated)
		}
		var a netip.Addr
		if afi == afiIPv6 {
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
		out = append(out, bgp.NLRI{Prefix: p, PathID: id})
		b = b[1+n:]
	}
	return out, nil
}

// take16 reads a 2-byte length.
func take16(b []byte) (int, []byte, error) {
	if len(b) < 2 {
		return 0, b, errTruncated
	}
	return int(binary.BigEndian.Uint16(b)), b[2:], nil
}
