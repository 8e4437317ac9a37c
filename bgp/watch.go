package bgp

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/server"
)

// watch subscribes to GoBGP's peer state changes and End-of-RIB markers. Paths
// come through the route feed (feed.go), and so do a session's start and end,
// in order with its paths. This watch adds the names of the other session
// states, for the peers list, and End-of-RIB, which GoBGP's BMP client does
// not forward: it is handed to the feed with the session it belongs to.
func (c *Collector) watch(ctx context.Context, f *routeFeed) error {
	// sessions counts each peer's sessions, as the feed counts Peer Ups (GoBGP
	// runs both callbacks of one watch on one goroutine).
	sessions := map[netip.Addr]uint64{}
	err := c.srv.WatchEvent(ctx, server.WatchEventMessageCallbacks{
		OnPeerUpdate: func(ev *apiutil.WatchEventMessage_PeerEvent, _ time.Time) { c.onPeerState(ev, sessions) },
		OnPathEor: func(p *apiutil.Path, _ time.Time) {
			if peer := p.PeerAddress.Unmap(); peer.IsValid() {
				f.endOfRIB(peer, p.Family.String(), p.Family.Afi() == gobgp.AFI_IP6, sessions[peer])
			}
		},
	}, server.WatchPeer(), server.WatchEor(true))
	if err != nil {
		return fmt.Errorf("watching BGP events: %w", err)
	}
	return nil
}

// onPeerState counts established sessions and records the states between
// sessions; the feed records a session's start and end.
func (c *Collector) onPeerState(ev *apiutil.WatchEventMessage_PeerEvent, sessions map[netip.Addr]uint64) {
	if ev.Type != apiutil.PEER_EVENT_STATE {
		return
	}
	st := ev.Peer.State
	addr := st.NeighborAddress.Unmap()
	if !addr.IsValid() {
		return
	}
	if st.SessionState == gobgp.BGP_FSM_ESTABLISHED {
		sessions[addr]++
		return
	}
	if !c.configuredSession(addr, st.PeerGroup) {
		return // the last event of a peer Reconfigure removed
	}
	state := strings.ToLower(strings.TrimPrefix(st.SessionState.String(), "BGP_FSM_"))
	c.store.PeerState(addr, state, st.PeerGroup != "") // a range's members are in its peer group
}

// restartTimes remembers each established peer's graceful-restart time, read
// when the session comes up (a dynamic peer is gone from GoBGP once it is down).
type restartTimes struct {
	mu sync.Mutex
	m  map[netip.Addr]time.Duration
}

// readRestartTime reads, at a peer's Peer Up, its graceful-restart time and
// the collector's address on the session (routeFeed.sessionLocal).
func (c *Collector) readRestartTime(ctx context.Context, addr netip.Addr, session uint64, f *routeFeed) {
	var restart time.Duration
	var local netip.Addr
	_ = c.srv.ListPeer(ctx, &api.ListPeerRequest{Address: addr.String()}, func(p *api.Peer) {
		if gr := p.GracefulRestart; gr != nil && gr.PeerRestartTime > 0 {
			restart = time.Duration(gr.PeerRestartTime) * time.Second
		}
		local, _ = netip.ParseAddr(p.GetTransport().GetLocalAddress())
	})
	f.sessionLocal(addr, session, local)
	rt := f.rt
	rt.mu.Lock()
	rt.m[addr] = restart
	rt.mu.Unlock()
	c.store.SetRestartTime(addr, restart)
}

// keepStale is how long a peer's paths outlive its session: its restart time,
// at most the grace window, with graceful restart on.
func (c *Collector) keepStale(addr netip.Addr, rt *restartTimes) time.Duration {
	c.mu.RLock()
	gr, window := c.cfg.GracefulRestart, c.cfg.GraceWindow
	c.mu.RUnlock()
	if !gr {
		return 0
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return min(rt.m[addr], window)
}
