package bmp

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	gobgp "github.com/osrg/gobgp/v3/pkg/packet/bgp"
	gbmp "github.com/osrg/gobgp/v3/pkg/packet/bmp"

	"github.com/routewarden/routewarden/bgp"
	"github.com/routewarden/routewarden/validator"
)

const (
	viewPre    = "pre-policy"
	viewPost   = "post-policy"
	viewLocRIB = "loc-rib"
)

// peerHeader is the BMP per-peer header.
type peerHeader struct {
	typ, flags uint8
	dist       uint64
	addr       netip.Addr
	as         uint32
	bgpID      netip.Addr
}

func parsePeerHeader(b []byte) (peerHeader, error) {
	if len(b) < peerHeaderLen {
		return peerHeader{}, fmt.Errorf("per-peer header: %w", errTruncated)
	}
	h := peerHeader{typ: b[0], flags: b[1], dist: binary.BigEndian.Uint64(b[2:10]),
		as: binary.BigEndian.Uint32(b[26:30]), bgpID: netip.AddrFrom4([4]byte(b[30:34]))}
	if h.flags&gbmp.BMP_PEER_FLAG_IPV6 != 0 {
		h.addr = netip.AddrFrom16([16]byte(b[10:26]))
	} else {
		h.addr = netip.AddrFrom4([4]byte(b[22:26]))
	}
	return h, nil
}

func (h peerHeader) locRIB() bool { return h.typ == gbmp.BMP_PEER_TYPE_LOCAL_RIB }

// peerState is what a session knows about one monitored peer.
type peerState struct {
	view string
	// addPath says, per family, whether the peer's UPDATEs carry path IDs
	// (from the Peer Up OPENs); when an UPDATE does not parse that way, the
	// other way is tried (GoBGP's initial dump omits them).
	addPathV4, addPathV6 bool
	// localAS is the monitoring router's ASN (its OPEN in Peer Up), 0 unknown.
	localAS uint32
	// idless is set per family once an UPDATE came without the negotiated
	// path IDs: such paths are held under ID 0, and a later message about the
	// prefix with an ID replaces them.
	idlessV4, idlessV6 bool
}

func (s *session) monitored(h peerHeader) bgp.MonitoredPeer {
	p := bgp.MonitoredPeer{Router: s.router, Type: h.typ, Distinguisher: h.dist, Address: h.addr}
	if h.locRIB() {
		p.Address = netip.Addr{}
	}
	return p
}

// state is the session's state for p, created (and p's paths cleared in the
// store) the first time the session mentions p: a new BMP session re-sends the
// full table, and an older session's paths for p, withdrawn while the router
// reconnected, must not outlive it.
func (s *session) state(p bgp.MonitoredPeer) *peerState {
	ps, ok := s.peers[p]
	if !ok {
		ps = &peerState{}
		s.st.mu.Lock()
		s.peers[p] = ps
		s.st.mu.Unlock()
		s.st.store.MonitoredClear(p)
	}
	return ps
}

func (s *session) routeMonitoring(msg []byte) error {
	h, err := parsePeerHeader(msg[headerLen:])
	if err != nil {
		return err
	}
	if h.flags&gbmp.BMP_PEER_FLAG_ADJ_RIB_TYP != 0 && !h.locRIB() {
		s.st.metrics.ignored.WithLabelValues("adj-rib-out").Inc()
		return nil
	}
	p := s.monitored(h)
	ps := s.state(p)
	view := viewPre
	switch {
	case h.locRIB():
		view = viewLocRIB
	case h.flags&gbmp.BMP_PEER_FLAG_POST_POLICY != 0:
		view = viewPost
	}
	switch {
	case ps.view == viewPost && view == viewPre:
		s.st.metrics.ignored.WithLabelValues("pre-policy-superseded").Inc()
		return nil
	case ps.view == viewPre && view == viewPost:
		s.st.store.MonitoredClear(p)
		fallthrough
	case ps.view == "":
		ps.view = view
		s.st.store.SetMonitoredView(p, s.sysName, view)
	}
	o := decodeOptions{addPathV4: ps.addPathV4, addPathV6: ps.addPathV6, twoByteAS: h.flags&gbmp.BMP_PEER_FLAG_TWO_AS != 0}
	if err := s.decodeRM(msg[headerLen+peerHeaderLen:], ps, o); err != nil {
		// Not fatal: pre-policy monitoring forwards UPDATEs as received, also
		// those the router treated as withdraw (RFC 7606).
		s.malformed(p, h, ps, err)
		return nil
	}
	if ps.idlessV4 || ps.idlessV6 {
		s.upd.withdrawn = replaceIdless(s.upd.withdrawn, s.upd.announced, ps)
		s.upd.mpWithdrawn = replaceIdless(s.upd.mpWithdrawn, s.upd.mpAnnounced, ps)
	}
	if ps.localAS != 0 && ps.localAS != h.as && len(s.upd.asPath) > 0 && s.upd.asPath[0] == ps.localAS {
		// FRR (8.4) encodes Adj-RIB-In paths as if it sent them to the peer,
		// its own ASN prepended; no received eBGP path starts with it.
		s.upd.asPath = s.upd.asPath[1:]
	}
	s.apply(p, h, &s.upd)
	return nil
}

// malformed handles an UPDATE that did not decode: it is counted and logged,
// and every prefix that did parse is withdrawn (treat-as-withdraw); the
// session goes on.
func (s *session) malformed(p bgp.MonitoredPeer, h peerHeader, ps *peerState, err error) {
	s.st.metrics.decodeErrors.Inc()
	s.st.metrics.ignored.WithLabelValues("malformed-update").Inc()
	s.st.sampledLog.Warn().Err(err).Str("router", s.router.String()).Str("sysName", s.sysName).
		Str("peer", h.addr.String()).Msg("BMP route monitoring: malformed UPDATE treated as withdraw")
	u := &s.upd
	u.withdrawn = append(u.withdrawn, u.announced...)
	u.mpWithdrawn = append(u.mpWithdrawn, u.mpAnnounced...)
	u.announced, u.mpAnnounced, u.eor, u.otherFamilies = u.announced[:0], u.mpAnnounced[:0], u.eor[:0], 0
	if ps.idlessV4 || ps.idlessV6 {
		u.withdrawn = replaceIdless(u.withdrawn, nil, ps)
		u.mpWithdrawn = replaceIdless(u.mpWithdrawn, nil, ps)
	}
	s.apply(p, h, u)
}

// apply stores a decoded UPDATE: each family with its own next hop.
func (s *session) apply(p bgp.MonitoredPeer, h peerHeader, u *update) {
	if u.otherFamilies > 0 {
		s.st.metrics.ignored.WithLabelValues("other-family").Add(float64(u.otherFamilies))
	}
	attrs := validator.Route{Peer: h.addr, PeerASN: h.as, RouterID: h.bgpID, ASPath: u.asPath, Communities: u.communities}
	if h.locRIB() {
		attrs.Peer = s.router
	}
	if h.locRIB() && len(u.asPath) > 0 && (len(u.announced) > 0 || len(u.mpAnnounced) > 0) {
		// Learned by the sender: somebody else's announcement, seen second hand.
		s.st.metrics.ignored.WithLabelValues("loc-rib-learned").Add(float64(len(u.announced) + len(u.mpAnnounced)))
		u.announced, u.mpAnnounced = u.announced[:0], u.mpAnnounced[:0]
	}
	if len(u.announced) > 0 || len(u.withdrawn) > 0 {
		attrs.NextHop = nextHop(u.nextHop)
		s.st.store.MonitoredUpdate(p, &attrs, u.announced, u.withdrawn)
	}
	if len(u.mpAnnounced) > 0 || len(u.mpWithdrawn) > 0 {
		attrs.NextHop = nextHop(u.mpNextHop)
		s.st.store.MonitoredUpdate(p, &attrs, u.mpAnnounced, u.mpWithdrawn)
	}
	for _, f := range u.eor {
		s.st.store.MonitoredEndOfRIB(p, f, f == "ipv6-unicast")
	}
}

// nextHop drops an unspecified next hop (a Loc-RIB path the sender
// originates), so attribution falls back to the sender's address.
func nextHop(a netip.Addr) netip.Addr {
	if !a.IsValid() || a.IsUnspecified() {
		return netip.Addr{}
	}
	return a
}

// parseWithPeer decodes a message with a per-peer header (Peer Up, Stats
// Report) with GoBGP, and the per-peer header with parsePeerHeader.
func parseWithPeer(msg []byte) (*gbmp.BMPMessage, peerHeader, error) {
	m, err := gbmp.ParseBMPMessage(msg)
	if err != nil {
		return nil, peerHeader{}, err
	}
	h, err := parsePeerHeader(msg[headerLen:])
	return m, h, err
}

func (s *session) peerUp(msg []byte) error {
	m, h, err := parseWithPeer(msg)
	if err != nil {
		return err
	}
	up := m.Body.(*gbmp.BMPPeerUpNotification)
	p := s.monitored(h)
	ps := s.state(p)
	ps.addPathV4 = addPathRx(up, gobgp.RF_IPv4_UC)
	ps.addPathV6 = addPathRx(up, gobgp.RF_IPv6_UC)
	ps.localAS = asOf(up.SentOpenMsg)
	info := bgp.PeerInfo{Address: p.Address, ASN: h.as, RouterID: h.bgpID.String(),
		BMP: &bgp.BMPInfo{Router: s.router, SysName: s.sysName, View: ps.view}}
	s.st.store.MonitoredUp(p, info)
	s.st.log.Info().Str("router", s.router.String()).Str("sysName", s.sysName).Str("peer", h.addr.String()).
		Uint32("asn", h.as).Bool("addPathV4", ps.addPathV4).Bool("addPathV6", ps.addPathV6).Msg("BMP peer up")
	return nil
}

func (s *session) peerDown(msg []byte) error {
	h, err := parsePeerHeader(msg[headerLen:])
	if err != nil {
		return err
	}
	if len(msg) < headerLen+peerHeaderLen+1 {
		return fmt.Errorf("reason: %w", errTruncated)
	}
	p := s.monitored(h)
	s.st.mu.Lock()
	delete(s.peers, p)
	s.st.mu.Unlock()
	s.st.store.MonitoredDown(p)
	s.st.metrics.forgetPeer(p)
	s.st.log.Warn().Str("router", s.router.String()).Str("sysName", s.sysName).Str("peer", h.addr.String()).
		Uint8("reason", msg[headerLen+peerHeaderLen]).Msg("BMP peer down; its routes are dropped")
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
