package bmp

import (
	gobgp "github.com/osrg/gobgp/v3/pkg/packet/bgp"
	gbmp "github.com/osrg/gobgp/v3/pkg/packet/bmp"

	"github.com/routewarden/routewarden/bgp"
)

// ADD-PATH: whether a monitored peer's UPDATEs carry path IDs comes from the
// Peer Up OPENs, but senders do not always follow them.

// decodeRM decodes a Route Monitoring UPDATE into s.upd. Senders do not always
// put the path IDs the Peer Up OPENs negotiated into BMP (FRR 8.4 never does,
// GoBGP not in its initial dump), and a message may parse both ways: with IDs
// it is taken when every ID is below 2^24 (real senders count IDs up from 1;
// a prefix misread as an ID starts with its length, so it is larger).
func (s *session) decodeRM(body []byte, ps *peerState, o decodeOptions) error {
	err := s.upd.decode(body, o)
	if !o.addPathV4 && !o.addPathV6 {
		if err != nil {
			// No ADD-PATH announced, IDs anyway (a Loc-RIB without Peer Up).
			// Decoded into alt: on failure, upd keeps the first reading.
			o.addPathV4, o.addPathV6 = true, true
			if s.alt.decode(body, o) == nil {
				s.upd, s.alt = s.alt, s.upd
				return nil
			}
		}
		return err
	}
	if err == nil && plausibleIDs(&s.upd) {
		return nil
	}
	without := o
	without.addPathV4, without.addPathV6 = false, false
	if s.alt.decode(body, without) == nil {
		s.upd, s.alt = s.alt, s.upd
		ps.idlessV4 = ps.idlessV4 || o.addPathV4
		ps.idlessV6 = ps.idlessV6 || o.addPathV6
		return nil
	}
	if err == nil {
		return nil
	}
	return err
}

func plausibleIDs(u *update) bool {
	for _, list := range [][]bgp.NLRI{u.withdrawn, u.announced, u.mpWithdrawn, u.mpAnnounced} {
		for _, n := range list {
			if n.PathID >= 1<<24 {
				return false
			}
		}
	}
	return true
}

// replaceIdless adds, for every path with an ID of a family that had paths
// without, a withdrawal of the prefix's ID-0 path.
func replaceIdless(withdrawn, announced []bgp.NLRI, ps *peerState) []bgp.NLRI {
	n := len(withdrawn)
	for _, list := range [][]bgp.NLRI{withdrawn[:n], announced} {
		for _, x := range list {
			if x.PathID != 0 && (x.Prefix.Addr().Is4() && ps.idlessV4 || x.Prefix.Addr().Is6() && ps.idlessV6) {
				withdrawn = append(withdrawn, bgp.NLRI{Prefix: x.Prefix})
			}
		}
	}
	return withdrawn
}

// addPathRx reports whether the monitored router receives path IDs from the
// peer: its OPEN (sent) offers receive, and the peer's (received) offers send.
func addPathRx(up *gbmp.BMPPeerUpNotification, rf gobgp.RouteFamily) bool {
	return addPathMode(up.SentOpenMsg, rf)&gobgp.BGP_ADD_PATH_RECEIVE != 0 &&
		addPathMode(up.ReceivedOpenMsg, rf)&gobgp.BGP_ADD_PATH_SEND != 0
}

// openCaps is the OPEN in m (nil if m is not an OPEN) and its capabilities.
func openCaps(m *gobgp.BGPMessage) (*gobgp.BGPOpen, []gobgp.ParameterCapabilityInterface) {
	if m == nil {
		return nil, nil
	}
	open, ok := m.Body.(*gobgp.BGPOpen)
	if !ok {
		return nil, nil
	}
	var caps []gobgp.ParameterCapabilityInterface
	for _, o := range open.OptParams {
		if cp, ok := o.(*gobgp.OptionParameterCapability); ok {
			caps = append(caps, cp.Capability...)
		}
	}
	return open, caps
}

// asOf is an OPEN's ASN: the 4-octet capability's, else My AS.
func asOf(m *gobgp.BGPMessage) uint32 {
	open, caps := openCaps(m)
	if open == nil {
		return 0
	}
	for _, c := range caps {
		if as4, ok := c.(*gobgp.CapFourOctetASNumber); ok {
			return as4.CapValue
		}
	}
	return uint32(open.MyAS)
}

func addPathMode(m *gobgp.BGPMessage, rf gobgp.RouteFamily) gobgp.BGPAddPathMode {
	_, caps := openCaps(m)
	for _, c := range caps {
		if ap, ok := c.(*gobgp.CapAddPath); ok {
			for _, t := range ap.Tuples {
				if t.RouteFamily == rf {
					return t.Mode
				}
			}
		}
	}
	return 0
}
