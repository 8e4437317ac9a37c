package bgp

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/apiutil"
)

// watch subscribes to GoBGP's peer state changes and End-of-RIB markers. Paths
// come through the route feed (feed.go), and so do a session's start and end,
// in order with its paths. This watch adds the names of the other session
// states, for the peers list, and End-of-RIB, which GoBGP's BMP client does
// not forward: it is handed to the feed with the session it belongs to.
func (c *Collector) watch(ctx context.Context, f *routeFeed) error {
	// sessions counts each peer's sessions, as the feed counts Peer Ups (the
	// callback runs on one goroutine).
	sessions := map[netip.Addr]uint64{}
	err := c.srv.WatchEvent(ctx, &api.WatchEventRequest{
		Peer: &api.WatchEventRequest_Peer{},
		Table: &api.WatchEventRequest_Table{Filters: []*api.WatchEventRequest_Table_Filter{
			{Type: api.WatchEventRequest_Table_Filter_EOR, Init: true},
		}},
	}, func(r *api.WatchEventResponse) {
		switch ev := r.Event.(type) {
		case *api.WatchEventResponse_Peer:
			c.onPeerState(ev.Peer, sessions)
		case *api.WatchEventResponse_Table:
			for _, p := range ev.Table.Paths {
				if peer, err := parseAddr(p.NeighborIp); err == nil && isEOR(p) {
					f.endOfRIB(peer, familyName(p.Family), p.Family.GetAfi() == api.Family_AFI_IP6, sessions[peer])
				}
			}
		}
	})
	if err != nil {
		return fmt.Errorf("watching BGP events: %w", err)
	}
	return nil
}

// onPeerState counts established sessions and records the states between
// sessions; the feed records a session's start and end.
func (c *Collector) onPeerState(ev *api.WatchEventResponse_PeerEvent, sessions map[netip.Addr]uint64) {
	if ev.Type != api.WatchEventResponse_PeerEvent_STATE || ev.Peer == nil || ev.Peer.State == nil {
		return
	}
	st := ev.Peer.State
	addr, err := parseAddr(st.NeighborAddress)
	if err != nil || !addr.IsValid() {
		return
	}
	if st.SessionState == api.PeerState_ESTABLISHED {
		sessions[addr]++
		return
	}
	state := strings.ToLower(strings.TrimPrefix(st.SessionState.String(), "SESSION_STATE_"))
	c.store.PeerState(addr, state, !c.isStatic(addr))
}

// restartTimes remembers each established peer's graceful-restart time, read
// when the session comes up (a dynamic peer is gone from GoBGP once it is down).
type restartTimes struct {
	mu sync.Mutex
	m  map[netip.Addr]time.Duration
}

func (c *Collector) readRestartTime(ctx context.Context, addr netip.Addr, rt *restartTimes) {
	var restart time.Duration
	_ = c.srv.ListPeer(ctx, &api.ListPeerRequest{Address: addr.String()}, func(p *api.Peer) {
		if gr := p.GracefulRestart; gr != nil && gr.PeerRestartTime > 0 {
			restart = time.Duration(gr.PeerRestartTime) * time.Second
		}
	})
	rt.mu.Lock()
	rt.m[addr] = restart
	rt.mu.Unlock()
	c.store.setRestartTime(addr, restart)
}

// keepStale is how long a peer's paths outlive its session: its restart time,
// at most the grace window, with graceful restart on.
func (c *Collector) keepStale(addr netip.Addr, rt *restartTimes) time.Duration {
	if !c.cfg.GracefulRestart {
		return 0
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return min(rt.m[addr], c.cfg.GraceWindow)
}

// isEOR reports whether a watched path is an End-of-RIB marker.
func isEOR(p *api.Path) bool { return p.Nlri == nil && len(p.NlriBinary) == 0 }

// familyName is "ipv4-unicast" or "ipv6-unicast".
func familyName(f *api.Family) string { return apiutil.ToRouteFamily(f).String() }

func parseAddr(s string) (netip.Addr, error) {
	if s == "" || s == "<nil>" {
		return netip.Addr{}, nil
	}
	a, err := netip.ParseAddr(s)
	return a.Unmap(), err
}
