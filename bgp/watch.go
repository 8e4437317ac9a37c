package bgp

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v3/api"

	"github.com/routewarden/routewarden/validator"
)

// restartTimes remembers each established peer's graceful-restart time, read
// when the session comes up (a dynamic peer is gone from GoBGP once it is down).
type restartTimes struct {
	mu sync.Mutex
	m  map[netip.Addr]time.Duration
}

// watch subscribes to received paths (ADJIN: the BEST stream would hide a
// prefix's second origin), End-of-RIB markers and peer state changes.
func (c *Collector) watch(ctx context.Context) error {
	rt := &restartTimes{m: map[netip.Addr]time.Duration{}}
	err := c.srv.WatchEvent(ctx, &api.WatchEventRequest{
		Peer: &api.WatchEventRequest_Peer{},
		Table: &api.WatchEventRequest_Table{Filters: []*api.WatchEventRequest_Table_Filter{
			{Type: api.WatchEventRequest_Table_Filter_ADJIN, Init: true},
			{Type: api.WatchEventRequest_Table_Filter_EOR, Init: true},
		}},
	}, func(r *api.WatchEventResponse) {
		switch ev := r.Event.(type) {
		case *api.WatchEventResponse_Peer:
			c.onPeer(ctx, ev.Peer, rt)
		case *api.WatchEventResponse_Table:
			c.onPaths(ev.Table.Paths)
		}
	})
	if err != nil {
		return fmt.Errorf("watching BGP events: %w", err)
	}
	return nil
}

func (c *Collector) onPeer(ctx context.Context, ev *api.WatchEventResponse_PeerEvent, rt *restartTimes) {
	if ev.Type != api.WatchEventResponse_PeerEvent_STATE || ev.Peer == nil || ev.Peer.State == nil {
		return
	}
	st := ev.Peer.State
	addr, err := parseAddr(st.NeighborAddress)
	if err != nil || !addr.IsValid() {
		return
	}
	state := strings.ToLower(strings.TrimPrefix(st.SessionState.String(), "SESSION_STATE_"))
	dynamic := !c.isStatic(addr)
	log := c.log.With().Str("peer", addr.String()).Uint32("asn", st.PeerAsn).Str("state", state).Logger()
	if st.SessionState == api.PeerState_ESTABLISHED {
		log.Info().Str("routerId", st.RouterId).Msg("BGP session established")
		c.store.PeerUp(PeerInfo{Address: addr, ASN: st.PeerAsn, RouterID: st.RouterId, Dynamic: dynamic})
		go c.readRestartTime(ctx, addr, rt)
		return
	}
	prev := c.store.peerState(addr)
	if prev != "established" {
		c.store.PeerState(addr, state, dynamic)
		return
	}
	rt.mu.Lock()
	keep := min(rt.m[addr], c.cfg.GraceWindow)
	rt.mu.Unlock()
	if !c.cfg.GracefulRestart {
		keep = 0
	}
	log.Warn().Dur("keepStale", keep).Msg("BGP session down")
	c.store.PeerDown(addr, state, keep)
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

func (c *Collector) onPaths(paths []*api.Path) {
	type batch struct{ announced, withdrawn []validator.Route }
	byPeer := map[netip.Addr]*batch{}
	for _, p := range paths {
		peer, _ := parseAddr(p.NeighborIp)
		if isEOR(p) {
			c.store.EndOfRIB(peer, familyName(p.Family), p.Family.GetAfi() == api.Family_AFI_IP6)
			continue
		}
		r, ok := c.routeOf(p)
		if !ok {
			continue
		}
		b := byPeer[peer]
		if b == nil {
			b = &batch{}
			byPeer[peer] = b
		}
		if p.IsWithdraw {
			b.withdrawn = append(b.withdrawn, r)
		} else {
			b.announced = append(b.announced, r)
		}
	}
	for peer, b := range byPeer {
		c.store.Update(peer, b.announced, b.withdrawn)
	}
}
