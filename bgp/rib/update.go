package rib

import (
	"net/netip"

	"github.com/routewarden/routewarden/bgp/wire"
	"github.com/routewarden/routewarden/validator"
)

// One UPDATE into the RIB: RouteMonitoring turns a decoded UPDATE into Paths,
// per address family, and Store.Update stores them for the peer they came from.

// Writer is where Route Monitoring lands: the Store (a consumer may put its
// own in between).
type Writer interface {
	Update(p Peer, b *Paths)
	EndOfRIB(p Peer, family string, isV6 bool)
}

// RouteMonitoring applies BMP Route Monitoring, one UPDATE at a time as
// bgp/wire decoded it, to a RIB: GoBGP's route feed does (bgp, a direct
// peer's UPDATEs as it took them), and so does the BMP station (bgp/bmp, a
// monitored peer's, after the sender's quirks are undone). It builds the
// paths' attributes from the BMP per-peer header and the UPDATE, and writes
// the UPDATE's unicast part and its MP_REACH/MP_UNREACH part apart, each
// with its own next hop. It reuses its buffers: one goroutine uses it.
type RouteMonitoring struct {
	rib Writer
	// ignored counts what is not applied, by reason; nil counts nothing.
	ignored func(reason string, n int)
	paths   Paths
}

// NewRouteMonitoring returns an applier writing to rib; ignored, when set,
// counts what is left out: "other-family" (neither IPv4 nor IPv6 unicast)
// and "loc-rib-learned" (paths a Loc-RIB holds second hand).
func NewRouteMonitoring(rib Writer, ignored func(reason string, n int)) *RouteMonitoring {
	return &RouteMonitoring{rib: rib, ignored: ignored}
}

// Apply writes UPDATE u of peer p, whose per-peer header is h, then the
// End-of-RIBs it carries. A Loc-RIB's paths are attributed to its router
// and only those it originates (empty AS path) are kept; a monitored
// peer's unspecified next hop (a path its router originates) is left unset,
// so attribution falls back to the sender's address.
func (a *RouteMonitoring) Apply(p Peer, h wire.PeerHeader, u *wire.Update) {
	if u.OtherFamilies > 0 {
		a.ignore("other-family", u.OtherFamilies)
	}
	b := &a.paths
	b.Attrs = validator.Attributes{Peer: h.Addr, PeerASN: h.AS, RouterID: h.BGPID, ASPath: u.ASPath,
		Communities: u.Communities, LargeCommunities: u.LargeCommunities, LocalPref: u.LocalPref,
		HasLocalPref: u.HasLocalPref, Relayed: p.Relayed, Local: p.Local}
	if h.Type == peerTypeLocRIB {
		b.Attrs.Peer = p.Router
		if len(u.ASPath) > 0 && (len(u.Announced) > 0 || len(u.MPAnnounced) > 0) {
			// Learned by the sender: somebody else's announcement, seen second hand.
			a.ignore("loc-rib-learned", len(u.Announced)+len(u.MPAnnounced))
			u.Announced, u.MPAnnounced = u.Announced[:0], u.MPAnnounced[:0]
		}
	}
	if len(u.Announced) > 0 || len(u.Withdrawn) > 0 {
		b.Attrs.NextHop, b.Announced, b.Withdrawn = nextHop(p, u.NextHop), u.Announced, u.Withdrawn
		a.rib.Update(p, b)
	}
	if len(u.MPAnnounced) > 0 || len(u.MPWithdrawn) > 0 {
		b.Attrs.NextHop, b.Announced, b.Withdrawn = nextHop(p, u.MPNextHop), u.MPAnnounced, u.MPWithdrawn
		a.rib.Update(p, b)
	}
	*b = Paths{}
	for _, f := range u.EoR {
		a.rib.EndOfRIB(p, f, f == "ipv6-unicast")
	}
}

func (a *RouteMonitoring) ignore(reason string, n int) {
	if a.ignored != nil {
		a.ignored(reason, n)
	}
}

// nextHop drops a monitored peer's unspecified next hop.
func nextHop(p Peer, a netip.Addr) netip.Addr {
	if p.Monitored() && (!a.IsValid() || a.IsUnspecified()) {
		return netip.Addr{}
	}
	return a
}

// Update applies one UPDATE's paths of peer p (announcements and
// withdrawals; every announced prefix gets b.Attrs): the one way paths get
// into the store, for direct and monitored peers alike. A direct peer's paths
// are staged while it sends its initial table (initial_sync.go) and become
// visible at its End-of-RIB; a monitored peer's view records when it changed.
func (s *Store) Update(p Peer, b *Paths) {
	if !p.Monitored() {
		s.sync.update(p.Address, b)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.apply(p.key(), b)
	if e.info.BMP == nil {
		e.info.BMP = &BMPInfo{Router: p.Router, View: p.View}
	}
	e.info.BMP.Updated = s.now()
	s.bump()
}

// apply makes b visible in k's paths at once (mu held; the caller bumps).
func (s *Store) apply(k peerKey, b *Paths) *peerEntry {
	e := s.entryKey(k) // notes a new view itself
	s.noteSent(k, false)
	for _, n := range b.Withdrawn {
		s.withdraw(e, n.Prefix, n.PathID)
	}
	if len(b.Announced) > 0 {
		attrs := b.Attrs
		attrs.PostPolicy, attrs.Router = postPolicy(k), k.router
		set := s.attrs.ref(&attrs, len(b.Announced))
		for _, n := range b.Announced {
			s.announce(e, n.Prefix, n.PathID, set)
		}
	}
	e.info.Routes = e.paths.len()
	return e
}

func (s *Store) withdraw(e *peerEntry, p netip.Prefix, id uint32) {
	if old, ok := e.paths.del(p, id); ok {
		s.attrs.unref(old &^ staleBit)
		s.logChange(e, p, id)
	}
}

// announce stores a path whose attribute set is already referenced.
func (s *Store) announce(e *peerEntry, p netip.Prefix, id, set uint32) {
	old, ok := e.paths.put(p, id, set)
	if ok {
		s.attrs.unref(old &^ staleBit)
	}
	if !ok || old != set {
		s.logChange(e, p, id)
	}
}

// drop removes a peer's paths (all, or only those match says; stale: kept
// through a graceful restart).
func (s *Store) drop(e *peerEntry, match func(p netip.Prefix, stale bool) bool) {
	logEach := s.logsEach(e.paths.len())
	e.paths.each(func(p netip.Prefix, id uint32, v uint32) (uint32, bool) {
		if match != nil && !match(p, v&staleBit != 0) {
			return v, true
		}
		s.attrs.unref(v &^ staleBit)
		if logEach {
			s.logChange(e, p, id)
		}
		return 0, false
	})
	e.info.Routes = e.paths.len()
}
