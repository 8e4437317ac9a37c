package wire

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// MP_REACH_NLRI and MP_UNREACH_NLRI (RFC 4760): IPv4 and IPv6 unicast are
// decoded, other families only counted (and noted as irregular).

func (u *Update) decodeMPReach(v []byte, o Options) error {
	if len(v) < 5 {
		return ErrTruncated
	}
	afi, safi, nhLen := binary.BigEndian.Uint16(v), v[2], int(v[3])
	if len(v) < 5+nhLen {
		return fmt.Errorf("next hop: %w", ErrTruncated)
	}
	if (afi != AFIIPv4 && afi != AFIIPv6) || safi != safiUnicast {
		u.OtherFamilies++
		if u.Irregular == "" {
			u.Irregular = fmt.Sprintf("AFI %d SAFI %d", afi, safi)
		}
		return nil
	}
	nh := v[4 : 4+nhLen]
	switch nhLen {
	case 4:
		u.MPNextHop = netip.AddrFrom4([4]byte(nh))
	case 16, 32: // global, then link-local
		u.MPNextHop = netip.AddrFrom16([16]byte(nh[:16])).Unmap()
	default:
		return fmt.Errorf("next hop of %d bytes", nhLen)
	}
	var err error
	u.MPAnnounced, err = appendNLRI(u.MPAnnounced, v[5+nhLen:], afi, o.addPath(afi))
	return err
}

func (u *Update) decodeMPUnreach(v []byte, o Options) error {
	if len(v) < 3 {
		return ErrTruncated
	}
	afi, safi := binary.BigEndian.Uint16(v), v[2]
	if (afi != AFIIPv4 && afi != AFIIPv6) || safi != safiUnicast {
		u.OtherFamilies++
		if u.Irregular == "" {
			u.Irregular = fmt.Sprintf("AFI %d SAFI %d", afi, safi)
		}
		return nil
	}
	if len(v) == 3 {
		u.EoR = append(u.EoR, familyName(afi))
		return nil
	}
	var err error
	u.MPWithdrawn, err = appendNLRI(u.MPWithdrawn, v[3:], afi, o.addPath(afi))
	return err
}

func familyName(afi uint16) string {
	if afi == AFIIPv6 {
		return "ipv6-unicast"
	}
	return "ipv4-unicast"
}
