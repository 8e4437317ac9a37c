package bmp

import (
	"fmt"
	"net/netip"
	"slices"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	gbmp "github.com/osrg/gobgp/v4/pkg/packet/bmp"

	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/bgp/wire"
)

const (
	viewPre    = rib.ViewPrePolicy
	viewPost   = rib.ViewPostPolicy
	viewLocRIB = rib.ViewLocRIB
)

func locRIB(h wire.PeerHeader) bool { return h.Type == gbmp.BMP_PEER_TYPE_LOCAL_RIB }

// peerState is what a session knows about one monitored peer.
type peerState struct {
	// views are the views the router sent of the peer so far.
	views []string
	// addPath says, per family, whether the peer's UPDATEs carry path IDs
	// (from the Peer Up OPENs); when an UPDATE does not parse that way, the
	// other way is tried (GoBGP's initial dump omits them).
	addPathV4, addPathV6 bool
	// localAS is the monitoring router's ASN (its OPEN in Peer Up), 0 unknown.
	localAS uint32
	// local is the monitoring router's address on the session (Peer Up's
	// Local Address): the address the peer sends to; invalid unknown.
	local netip.Addr
	// idless is set per family once an UPDATE came without the negotiated
	// path IDs: such paths are held under ID 0, and a later message about the
	// prefix with an ID replaces them.
	idlessV4, idlessV6 bool
}

func (s *session) monitored(h wire.PeerHeader) rib.Peer {
	p := rib.Peer{Router: s.router, Type: h.Type, Distinguisher: h.Dist, Address: h.Addr}
	if locRIB(h) {
		p.Address = netip.Addr{}
	}
	return p
}

// state is the session's state for p, created (and p's paths cleared in the
// store) the first time the session mentions p: a new BMP session re-sends the
// full table, and an older session's paths for p, withdrawn while the router
// reconnected, must not outlive it.
func (s *session) state(p rib.Peer) *peerState {
	ps, ok := s.peers[p]
	if !ok {
		ps = &peerState{}
		s.st.mu.Lock()
		s.peers[p] = ps
		s.st.mu.Unlock()
		s.st.store.Clear(p)
	}
	return ps
}

func (s *session) routeMonitoring(msg []byte) error {
	h, err := wire.ParsePeerHeader(msg[wire.BMPHeaderLen:])
	if err != nil {
		return err
	}
	if h.Flags&gbmp.BMP_PEER_FLAG_ADJ_RIB_TYP != 0 && !locRIB(h) {
		s.st.metrics.ignored.WithLabelValues("adj-rib-out").Inc()
		return nil
	}
	p := s.monitored(h)
	ps := s.state(p)
	view := viewPre
	switch {
	case locRIB(h):
		view = viewLocRIB
	case h.Flags&gbmp.BMP_PEER_FLAG_POST_POLICY != 0:
		view = viewPost
	}
	if !slices.Contains(ps.views, view) {
		ps.views = append(ps.views, view)
		s.st.store.SetView(p, s.sysName, view)
	}
	p.View = view
	o := wire.Options{AddPathV4: ps.addPathV4, AddPathV6: ps.addPathV6, TwoByteAS: h.TwoByteAS()}
	if err := s.decodeRM(msg[wire.BMPHeaderLen+wire.PeerHeaderLen:], ps, o); err != nil {
		// Not fatal: pre-policy monitoring forwards UPDATEs as received, also
		// those the router treated as withdraw (RFC 7606).
		s.malformed(p, h, ps, err)
		return nil
	}
	if ps.idlessV4 || ps.idlessV6 {
		s.upd.Withdrawn = replaceIdless(s.upd.Withdrawn, s.upd.Announced, ps)
		s.upd.MPWithdrawn = replaceIdless(s.upd.MPWithdrawn, s.upd.MPAnnounced, ps)
	}
	if ps.localAS != 0 && ps.localAS != h.AS && len(s.upd.ASPath) > 0 && s.upd.ASPath[0] == ps.localAS {
		// FRR (8.4) encodes Adj-RIB-In paths as if it sent them to the peer,
		// its own ASN prepended; no received eBGP path starts with it.
		s.upd.ASPath = s.upd.ASPath[1:]
	}
	p.Local = ps.local // not part of p's identity: set past s.state
	s.st.store.CountPeerPaths(p, len(s.upd.Announced)+len(s.upd.MPAnnounced), "", 0)
	s.rm.Apply(p, h, &s.upd)
	return nil
}

// dropTreatAsWithdraw is the reason its paths are counted under, the route
// feed's word for it (routewarden_bgp_paths_dropped_total) too.
const dropTreatAsWithdraw = "treat-as-withdraw"

// malformed handles an UPDATE that did not decode: it is counted and logged,
// and every prefix that did parse is withdrawn (treat-as-withdraw); the
// session goes on.
func (s *session) malformed(p rib.Peer, h wire.PeerHeader, ps *peerState, err error) {
	s.st.metrics.decodeErrors.Inc()
	s.st.metrics.ignored.WithLabelValues("malformed-update").Inc()
	u := &s.upd
	n := len(u.Announced) + len(u.MPAnnounced)
	s.st.store.CountPeerPaths(p, n, dropTreatAsWithdraw, n)
	if n > 0 {
		s.st.metrics.pathsDropped.WithLabelValues(s.router.String(), h.Addr.String(), dropTreatAsWithdraw).Add(float64(n))
	}
	s.st.sampledLog.Warn().Err(err).Str("router", s.router.String()).Str("sysName", s.sysName).
		Str("peer", h.Addr.String()).Int("paths", n).Msg("BMP route monitoring: malformed UPDATE treated as withdraw")
	u.TreatAsWithdraw()
	if ps.idlessV4 || ps.idlessV6 {
		u.Withdrawn = replaceIdless(u.Withdrawn, nil, ps)
		u.MPWithdrawn = replaceIdless(u.MPWithdrawn, nil, ps)
	}
	s.rm.Apply(p, h, u)
}

// parseWithPeer decodes a message with a per-peer header (Peer Up, Stats
// Report) with GoBGP, and the per-peer header with wire.ParsePeerHeader.
func parseWithPeer(msg []byte) (*gbmp.BMPMessage, wire.PeerHeader, error) {
	m, err := gbmp.ParseBMPMessage(msg)
	if err != nil {
		return nil, wire.PeerHeader{}, err
	}
	h, err := wire.ParsePeerHeader(msg[wire.BMPHeaderLen:])
	return m, h, err
}

func (s *session) peerUp(msg []byte) error {
	m, h, err := parseWithPeer(msg)
	if err != nil {
		// FRR 8.4 sends, for a peer established before the BMP session, a
		// Peer Up whose OPENs are cut short: the per-peer header still says
		// who the peer is, the OPENs' capabilities stay unknown.
		var herr error
		if h, herr = wire.ParsePeerHeader(msg[wire.BMPHeaderLen:]); herr != nil {
			return err
		}
		s.st.metrics.ignored.WithLabelValues("peer-up-open-malformed").Inc()
		s.st.sampledLog.Warn().Err(err).Str("router", s.router.String()).Str("peer", h.Addr.String()).
			Msg("BMP peer up: OPEN messages unreadable; the peer is recorded without its capabilities")
		m = &gbmp.BMPMessage{Body: &gbmp.BMPPeerUpNotification{LocalAddress: localAddress(h, msg)}}
	}
	up := m.Body.(*gbmp.BMPPeerUpNotification)
	p := s.monitored(h)
	ps := s.state(p)
	ps.addPathV4 = wire.AddPathRx(up, gobgp.RF_IPv4_UC)
	ps.addPathV6 = wire.AddPathRx(up, gobgp.RF_IPv6_UC)
	ps.localAS = wire.OpenAS(up.SentOpenMsg)
	if ps.local = up.LocalAddress.Unmap(); ps.local.IsUnspecified() {
		ps.local = netip.Addr{} // no address to match a Cilium peer's peerAddress on
	}
	info := rib.PeerInfo{Address: p.Address, ASN: h.AS, RouterID: h.BGPID.String(),
		BMP: &rib.BMPInfo{Router: s.router, SysName: s.sysName}}
	s.st.store.Up(p, info)
	s.st.log.Info().Str("router", s.router.String()).Str("sysName", s.sysName).Str("peer", h.Addr.String()).
		Uint32("asn", h.AS).Bool("addPathV4", ps.addPathV4).Bool("addPathV6", ps.addPathV6).Msg("BMP peer up")
	return nil
}

// localAddress reads a Peer Up's Local Address (RFC 7854 4.10) from msg,
// whatever follows it; invalid when it is cut short.
func localAddress(h wire.PeerHeader, msg []byte) netip.Addr {
	body := msg[wire.BMPHeaderLen+wire.PeerHeaderLen:]
	if len(body) < 16 {
		return netip.Addr{}
	}
	if h.Flags&gbmp.BMP_PEER_FLAG_IPV6 != 0 {
		return netip.AddrFrom16([16]byte(body[:16])).Unmap()
	}
	return netip.AddrFrom4([4]byte(body[12:16]))
}

func (s *session) peerDown(msg []byte) error {
	h, err := wire.ParsePeerHeader(msg[wire.BMPHeaderLen:])
	if err != nil {
		return err
	}
	if len(msg) < wire.BMPHeaderLen+wire.PeerHeaderLen+1 {
		return fmt.Errorf("reason: %w", wire.ErrTruncated)
	}
	p := s.monitored(h)
	s.st.mu.Lock()
	delete(s.peers, p)
	s.st.mu.Unlock()
	s.st.store.Down(p, "down", 0)
	s.st.metrics.forgetPeer(p)
	s.st.log.Warn().Str("router", s.router.String()).Str("sysName", s.sysName).Str("peer", h.Addr.String()).
		Uint8("reason", msg[wire.BMPHeaderLen+wire.PeerHeaderLen]).Msg("BMP peer down; its routes are dropped")
	return nil
}

func (s *session) stats(msg []byte) error {
	m, h, err := parseWithPeer(msg)
	if err != nil {
		return err
	}
	p := s.monitored(h)
	// Registered, so that the peer's series are deleted with it.
	s.state(p)
	for _, tlv := range m.Body.(*gbmp.BMPStatisticsReport).Stats {
		switch v := tlv.(type) {
		case *gbmp.BMPStatsTLV32:
			s.st.metrics.stat(p, statName(v.Type), float64(v.Value))
		case *gbmp.BMPStatsTLV64:
			s.st.metrics.stat(p, statName(v.Type), float64(v.Value))
		case *gbmp.BMPStatsTLVPerAfiSafi64:
			s.st.metrics.stat(p, perAFIStatName(v.Type, v.AFI, v.SAFI), float64(v.Value))
		}
	}
	return nil
}
