package bgp

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	gbmp "github.com/osrg/gobgp/v4/pkg/packet/bmp"

	"github.com/routewarden/routewarden/bgp/wire"
)

// gobgpSession is what GoBGP's FSM used to decode a session's UPDATEs.
type gobgpSession struct {
	opts     *gobgp.MarshallingOption
	families map[gobgp.Family]gobgp.BGPAddPathMode
	ebgp     bool
	// loopback: both ends of the TCP connection on IPv4 loopback, where
	// GoBGP allows a loopback next hop (its FSM reads the connection's own
	// addresses, fsmHandler.loop).
	loopback bool
}

func newGoBGPSession(up *gbmp.BMPPeerUpNotification, peer netip.Addr, peerAS, localAS uint32) *gobgpSession {
	s := &gobgpSession{opts: &gobgp.MarshallingOption{AddPath: map[gobgp.Family]gobgp.BGPAddPathMode{}},
		families: map[gobgp.Family]gobgp.BGPAddPathMode{}, ebgp: peerAS != localAS}
	theirs := wire.Families(up.ReceivedOpenMsg)
	for _, rf := range wire.Families(up.SentOpenMsg) {
		if !slices.Contains(theirs, rf) {
			continue
		}
		mode := gobgp.BGP_ADD_PATH_NONE
		if wire.AddPathRx(up, rf) {
			mode = gobgp.BGP_ADD_PATH_RECEIVE
			s.opts.AddPath[rf] = mode
		}
		s.families[rf] = mode
	}
	s.setLocal(up.LocalAddress.Unmap(), peer)
	return s
}

// setLocal judges loopback next hops as GoBGP does on a session whose local
// end is local. GoBGP's Peer Up gives the configured local address, none
// (unspecified) for a dynamic neighbor or a neighbor without one: until
// the session's own is read (routeFeed.sessionLocal), a peer on IPv4
// loopback is taken to have reached a loopback address, as a TCP connection
// from 127.0.0.0/8 does unless it was dialled to another of the host's.
func (s *gobgpSession) setLocal(local, peer netip.Addr) {
	if !local.IsValid() || local.IsUnspecified() {
		local = peer
	}
	s.loopback = local.Is4() && local.IsLoopback() && peer.Is4() && peer.IsLoopback()
}

// familyNames are the session's address families as End-of-RIB names them
// ("ipv4-unicast"), sorted.
func (s *gobgpSession) familyNames() []string {
	names := make([]string, 0, len(s.families))
	for rf := range s.families {
		names = append(names, rf.String())
	}
	slices.Sort(names)
	return names
}

// decodeLikeGoBGP decodes an UPDATE Decode found irregular (or could not
// decode) as GoBGP's FSM did before forwarding it: GoBGP's parser, then
// ValidateUpdateMsg if the parser found nothing wrong, RFC 7606
// treat-as-withdraw, and the AS4_PATH merge of a 2-octet-AS session (RFC 6793
// §4.2.3). An error is what GoBGP would have reset the session for; it never
// forwards those. withdrawn, when set, is why GoBGP treated the UPDATE's
// paths as withdrawn (RFC 7606): u holds them announced, for the caller to
// count, then withdraw.
func (s *gobgpSession) decodeLikeGoBGP(payload []byte, twoByteAS bool, u *wire.Update) (withdrawn, _ error) {
	m, perr := gobgp.ParseBGPMessage(payload, s.opts)
	if m == nil {
		return nil, perr
	}
	body, ok := m.Body.(*gobgp.BGPUpdate)
	if !ok {
		return nil, fmt.Errorf("BGP message type %d, want UPDATE", m.Header.Type)
	}
	withdraw, err := handleAsGoBGP(perr)
	if err != nil {
		return nil, err
	}
	if withdraw {
		withdrawn = perr
	} else if perr == nil {
		if ok, verr := gobgp.ValidateUpdateMsg(body, s.families, s.ebgp, false, s.loopback); !ok {
			if withdraw, err = handleAsGoBGP(verr); err != nil {
				return nil, err
			}
			if withdraw {
				withdrawn = verr
			}
		}
	}
	*u = wire.Update{}
	u.Withdrawn = appendNative(u.Withdrawn, body.WithdrawnRoutes)
	u.Announced = appendNative(u.Announced, body.NLRI)
	var as4 []uint32
	for _, a := range body.PathAttributes {
		switch a := a.(type) {
		case *gobgp.PathAttributeNextHop:
			u.NextHop = a.Value.Unmap()
		case *gobgp.PathAttributeAsPath:
			for _, seg := range a.Value {
				u.ASPath = append(u.ASPath, seg.GetAS()...)
			}
		case *gobgp.PathAttributeAs4Path:
			for _, seg := range a.Value {
				as4 = append(as4, seg.GetAS()...)
			}
		case *gobgp.PathAttributeCommunities:
			u.Communities = wire.AppendCommunities(u.Communities, a)
		case *gobgp.PathAttributeLargeCommunities:
			u.LargeCommunities = wire.AppendLargeCommunities(u.LargeCommunities, a)
		case *gobgp.PathAttributeLocalPref:
			u.LocalPref, u.HasLocalPref = a.Value, true
		case *gobgp.PathAttributeMpReachNLRI:
			if unicast(a.AFI, a.SAFI) {
				u.MPNextHop = a.Nexthop.Unmap()
				u.MPAnnounced = appendNative(u.MPAnnounced, a.Value)
			}
		case *gobgp.PathAttributeMpUnreachNLRI:
			if unicast(a.AFI, a.SAFI) {
				u.MPWithdrawn = appendNative(u.MPWithdrawn, a.Value)
			}
		}
	}
	if twoByteAS && len(as4) > 0 && len(as4) <= len(u.ASPath) {
		u.ASPath = append(u.ASPath[:len(u.ASPath)-len(as4)], as4...)
	}
	return withdrawn, nil
}

// handleAsGoBGP does what GoBGP's FSM does with an UPDATE error
// (fsmHandler.handlingError): treat-as-withdraw turns the UPDATE's paths into
// withdrawals (withdraw); after a session reset (GoBGP v4 resets the session
// where RFC 7606 allows an AFI/SAFI disable) GoBGP forwards nothing (an
// error here); with anything else (attribute discard, done by its parser and
// ValidateUpdateMsg already) it goes on with the UPDATE.
func handleAsGoBGP(err error) (withdraw bool, _ error) {
	if err == nil {
		return false, nil
	}
	var me *gobgp.MessageError
	if !errors.As(err, &me) {
		return false, err
	}
	switch me.ErrorHandling {
	case gobgp.ERROR_HANDLING_TREAT_AS_WITHDRAW:
		return true, nil
	case gobgp.ERROR_HANDLING_SESSION_RESET, gobgp.ERROR_HANDLING_AFISAFI_DISABLE:
		return false, err
	}
	return false, nil
}

func unicast(afi uint16, safi uint8) bool {
	return (afi == gobgp.AFI_IP || afi == gobgp.AFI_IP6) && safi == gobgp.SAFI_UNICAST
}

func appendNative(out []wire.NLRI, prefixes []gobgp.PathNLRI) []wire.NLRI {
	for _, p := range prefixes {
		if pf, err := netip.ParsePrefix(p.NLRI.String()); err == nil {
			out = append(out, wire.NLRI{Prefix: pf.Masked(), PathID: p.ID})
		}
	}
	return out
}
