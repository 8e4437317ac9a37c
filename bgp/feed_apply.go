package bgp

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"time"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	gbmp "github.com/osrg/gobgp/v4/pkg/packet/bmp"

	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/bgp/wire"
)

// handle applies one message of the feed.
func (f *routeFeed) handle(ctx context.Context, msg []byte, buffered int) (err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buffered = buffered
	defer func() {
		if r := recover(); r != nil {
			f.c.metrics.decodeErrors.Inc()
			f.sampledLog.Error().Interface("panic", r).Msg("route feed: a message routewarden cannot decode was ignored")
		}
	}()
	switch msg[5] {
	case gbmp.BMP_MSG_ROUTE_MONITORING:
		f.routeMonitoring(msg)
	case gbmp.BMP_MSG_PEER_UP_NOTIFICATION:
		return f.peerUp(ctx, msg)
	case gbmp.BMP_MSG_PEER_DOWN_NOTIFICATION:
		return f.peerDown(msg)
	case gbmp.BMP_MSG_TERMINATION:
		return errFeedTerminated
	}
	return nil
}

func (f *routeFeed) peerUp(ctx context.Context, msg []byte) error {
	m, err := gbmp.ParseBMPMessage(msg)
	if err != nil {
		return fmt.Errorf("route feed: decoding a Peer Up: %w", err)
	}
	h, err := wire.ParsePeerHeader(msg[wire.BMPHeaderLen:])
	if err != nil {
		return fmt.Errorf("route feed: decoding a Peer Up: %w", err)
	}
	up := m.Body.(*gbmp.BMPPeerUpNotification)
	p := f.peers[h.Addr]
	if p == nil {
		p = &feedPeer{}
		f.peers[h.Addr] = p
	}
	if !f.c.configuredPeer(h.Addr) {
		// A session that came up just before Reconfigure deleted its peer:
		// GoBGP sends no Peer Down for it, so it must not start here. It
		// still counts, as the watch counts it (End-of-RIB's session).
		p.up, p.session = false, p.session+1
		return nil
	}
	// The session's first paths may still be behind an End-of-RIB the watch
	// posts: quiet counts from the Peer Up, not from the last session's paths.
	p.up, p.session, p.lastPath = true, p.session+1, time.Now()
	p.opts = wire.Options{AddPathV4: wire.AddPathRx(up, gobgp.RF_IPv4_UC), AddPathV6: wire.AddPathRx(up, gobgp.RF_IPv6_UC)}
	p.preserved = wire.GracefulRestartFamilies(up.ReceivedOpenMsg)
	p.localAS = wire.OpenAS(up.SentOpenMsg)
	p.local, p.relayed = up.LocalAddress.Unmap(), f.c.relayed(h.Addr)
	if p.local.IsUnspecified() {
		p.local = netip.Addr{} // GoBGP's Peer Up gives the configured one: sessionLocal reads the session's
	}
	p.gobgp = newGoBGPSession(up, h.Addr, h.AS, p.localAS)
	c := f.c
	c.log.Info().Str("peer", h.Addr.String()).Uint32("asn", h.AS).Str("routerId", h.BGPID.String()).
		Msg("BGP session established")
	families := p.gobgp.familyNames()
	c.store.Up(rib.Direct(h.Addr), rib.PeerInfo{Address: h.Addr, ASN: h.AS, RouterID: h.BGPID.String(),
		Dynamic: !c.isStatic(h.Addr), Families: families})
	go c.readRestartTime(ctx, h.Addr, p.session, f)
	return nil
}

func (f *routeFeed) peerDown(msg []byte) error {
	h, err := wire.ParsePeerHeader(msg[wire.BMPHeaderLen:])
	if err != nil {
		return fmt.Errorf("route feed: decoding a Peer Down: %w", err)
	}
	p := f.peers[h.Addr]
	if p == nil || !p.up {
		return nil
	}
	// Every UPDATE of the session came before its end: its End-of-RIBs hold.
	f.applyDueLocked(time.Now(), h.Addr)
	p.up = false
	c := f.c
	keep := time.Duration(0)
	if gracefulDown(msg) {
		keep = c.keepStale(h.Addr, f.rt)
	}
	if keep > 0 {
		// GoBGP keeps only the families the peer's graceful-restart
		// capability lists (RFC 4724 §3); the others go now, before what
		// the peer staged is published.
		if !slices.Contains(p.preserved, gobgp.RF_IPv4_UC) {
			c.store.DropFamily(h.Addr, false)
		}
		if !slices.Contains(p.preserved, gobgp.RF_IPv6_UC) {
			c.store.DropFamily(h.Addr, true)
		}
	}
	c.log.Warn().Str("peer", h.Addr.String()).Uint32("asn", h.AS).Dur("keepStale", keep).Msg("BGP session down")
	c.store.Down(rib.Direct(h.Addr), "idle", keep)
	return nil
}

// removed ends the session of a neighbor the configuration no longer has:
// GoBGP deletes it without a Peer Down (its last state event carries no old
// state), so its paths go here, and what the feed still brings of it is
// ignored.
func (f *routeFeed) removed(peer netip.Addr) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p := f.peers[peer]; p != nil {
		p.up = false
	}
	f.c.store.Down(rib.Direct(peer), "removed", 0)
	f.c.store.Forget(peer)
}

// reconfigured re-marks the paths of each peer whose role (tor or node)
// the configuration changed (rib.Store.SetSession), and its paths from now
// on: the paths it sent before are judged as the new role says, not only
// those it sends after.
func (f *routeFeed) reconfigured() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for addr, p := range f.peers {
		if r := f.c.relayed(addr); r != p.relayed {
			p.relayed = r
			f.c.store.SetSession(addr, r, p.local)
		}
	}
}

// sessionLocal records the collector's address on a peer's session
// (GoBGP's ListPeer) when its Peer Up did not give it (a dynamic neighbor's
// is unspecified there), and marks the paths that came before with it.
func (f *routeFeed) sessionLocal(addr netip.Addr, session uint64, local netip.Addr) {
	local = local.Unmap()
	if !local.IsValid() || local.IsUnspecified() {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if p := f.peers[addr]; p != nil && p.session == session && p.local != local {
		p.local = local
		p.gobgp.setLocal(local, addr)
		f.c.store.SetSession(addr, p.relayed, local)
	}
}

// gracefulDown reports whether GoBGP kept the session's paths for a graceful
// restart (RFC 4724, RFC 8538): it does when the session died of a read or
// write failure or a hold-timer expiry, not after a NOTIFICATION (a Cease from
// a node shut down cleanly, a reset for a malformed UPDATE). Its Peer Down then
// says "remote NOTIFICATION" and carries none.
func gracefulDown(msg []byte) bool {
	body := msg[wire.BMPHeaderLen+wire.PeerHeaderLen:]
	return len(body) == 1 && body[0] == gbmp.BMP_PEER_DOWN_REASON_REMOTE_BGP_NOTIFICATION
}

// routeMonitoring applies one UPDATE as the peer sent it; every path left
// out is counted (feed_drops.go).
func (f *routeFeed) routeMonitoring(msg []byte) {
	h, err := wire.ParsePeerHeader(msg[wire.BMPHeaderLen:])
	if err != nil {
		return
	}
	u := &f.upd
	body := msg[wire.BMPHeaderLen+wire.PeerHeaderLen:]
	p := f.peers[h.Addr]
	if p == nil || !p.up {
		f.c.metrics.decodeErrors.Inc()
		_ = u.Decode(body, wire.Options{TwoByteAS: h.TwoByteAS()})
		n := max(announcedPaths(u), 1)
		f.counted(h.Addr, n, dropOutsideSession, n, nil)
		return
	}
	p.lastPath = time.Now()
	opts := p.opts
	opts.TwoByteAS = h.TwoByteAS() // GoBGP's client says so in every Route Monitoring, not in Peer Up
	var reason string
	var why error
	if err := u.Decode(body, opts); err != nil || u.Irregular != "" {
		// Malformed, or not in the regular form: GoBGP may have read it
		// otherwise (RFC 7606), so it is read GoBGP's way.
		withdrawn, err := p.gobgp.decodeLikeGoBGP(body, opts.TwoByteAS, u)
		switch {
		case err != nil:
			f.c.metrics.decodeErrors.Inc()
			reason, why = dropMalformed, err
		case withdrawn != nil:
			reason, why = dropTreatAsWithdraw, withdrawn
		}
	}
	n := announcedPaths(u)
	switch {
	case reason == dropMalformed:
		n = max(n, 1) // an UPDATE GoBGP took held a path at least
	case reason == "" && n > 0 && p.localAS != 0 && slices.Contains(u.ASPath, p.localAS):
		reason = dropASLoop // GoBGP rejects such paths (RFC 4271 9.1.2)
	}
	dropped := 0
	if reason != "" {
		dropped = n
	}
	f.counted(h.Addr, n+u.OtherFamilies, reason, dropped, why)
	if u.OtherFamilies > 0 {
		f.counted(h.Addr, 0, dropOtherFamily, u.OtherFamilies, nil)
	}
	if reason != "" {
		u.TreatAsWithdraw()
	}
	// End-of-RIB comes from the watch API alone (feed.go). GoBGP takes an
	// UPDATE for an End-of-RIB only when the empty MP_UNREACH stands alone; one
	// that also carries paths (IPv4 NLRI beside an empty IPv6 MP_UNREACH) is
	// forwarded here but ends no table in GoBGP, so it must not end one here.
	u.EoR = u.EoR[:0]
	peer := rib.Direct(h.Addr)
	peer.Relayed, peer.Local = p.relayed, p.local
	f.rm.Apply(peer, h, u)
}

// endOfRIB takes an End-of-RIB from the watch; it is applied once the feed
// has caught up with it.
func (f *routeFeed) endOfRIB(peer netip.Addr, family string, isV6 bool, session uint64) {
	f.mu.Lock()
	f.pending = append(f.pending, pendingEoR{peer: peer, family: family, isV6: isV6, session: session, posted: time.Now()})
	f.mu.Unlock()
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

// applyEoRs applies pending End-of-RIBs as they come due, until done closes.
func (f *routeFeed) applyEoRs(done <-chan struct{}) {
	t := time.NewTicker(feedQuiet / 4)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-f.kick:
		}
		for waiting := true; waiting; {
			select {
			case <-done:
				return
			case now := <-t.C:
				f.mu.Lock()
				f.applyDueLocked(now, netip.Addr{})
				waiting = len(f.pending) > 0
				f.mu.Unlock()
			}
		}
	}
}

// applyDueLocked applies the End-of-RIBs that are due, and all of only's
// current session when only is set; those of ended sessions are dropped.
func (f *routeFeed) applyDueLocked(now time.Time, only netip.Addr) {
	kept := f.pending[:0]
	for _, e := range f.pending {
		p := f.peers[e.peer]
		switch {
		case p == nil || p.session < e.session: // its Peer Up is still on the way
			if now.Sub(e.posted) < 10*feedEoRMaxWait {
				kept = append(kept, e)
			}
		case p.session > e.session || !p.up: // an ended session's
		case e.peer == only || now.Sub(p.lastPath) >= feedQuiet && f.drained() || now.Sub(e.posted) >= feedEoRMaxWait:
			f.c.store.EndOfRIB(rib.Direct(e.peer), e.family, e.isV6)
		default:
			kept = append(kept, e)
		}
	}
	f.pending = kept
}
