package bgp

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
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
		c.sync.peerUp(addr)
		go c.readRestartTime(ctx, addr, rt)
		return
	}
	c.sync.flush(addr) // what arrived before the session ended, then the end
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
	byPeer := map[netip.Addr]*pathBatch{}
	for _, p := range paths {
		peer, _ := parseAddr(p.NeighborIp)
		if isEOR(p) {
			c.sync.endOfRIB(peer, func() {
				c.store.EndOfRIB(peer, familyName(p.Family), p.Family.GetAfi() == api.Family_AFI_IP6)
			})
			continue
		}
		r, ok := c.routeOf(p)
		if !ok {
			continue
		}
		b := byPeer[peer]
		if b == nil {
			b = &pathBatch{}
			byPeer[peer] = b
		}
		if p.IsWithdraw {
			b.withdrawn = append(b.withdrawn, r)
		} else {
			b.announced = append(b.announced, r)
		}
	}
	for peer, b := range byPeer {
		c.sync.update(peer, b)
	}
}

// pathBatch is what one watch event brought from one peer.
type pathBatch struct{ announced, withdrawn []validator.Route }

// Initial-sync batching: while a peer sends its initial table (from
// Established until its End-of-RIB), its paths are held back and handed to
// the store in one go at End-of-RIB, instead of one store update per UPDATE
// message. Every store update wakes the validation loop, and validating a
// half-received table is wasted work (a million routes arrive in seconds; each
// validation of the partial table costs a snapshot and a missing-route finding
// for every CIDR not yet announced). A peer that sends no End-of-RIB (no
// graceful restart) is flushed once it has been quiet for syncSettle; nothing
// is held longer than syncMaxHold. After its first flush a peer's updates go
// straight to the store again.
const (
	syncSettle  = 200 * time.Millisecond
	syncMaxHold = 30 * time.Second
)

type syncPeer struct {
	batches []heldBatch
	first   time.Time
	timer   *time.Timer
}

// heldBatch is a pathBatch held back, compacted: the announced paths are runs
// of paths sharing every attribute but prefix and path ID (an UPDATE's NLRI
// share them all), so a held path costs its prefix and ID, not a whole
// validator.Route — a million held paths would otherwise take a few hundred MB.
type heldBatch struct {
	withdrawn []validator.Route
	runs      []heldRun
}

type heldRun struct {
	attrs validator.Route // Prefix and PathID unset
	paths []heldPath
}

type heldPath struct {
	prefix netip.Prefix
	id     uint32
}

func sameAttrs(a, b *validator.Route) bool {
	return a.NextHop == b.NextHop && a.Peer == b.Peer && a.PeerASN == b.PeerASN && a.RouterID == b.RouterID &&
		a.Stale == b.Stale && slices.Equal(a.ASPath, b.ASPath) && slices.Equal(a.Communities, b.Communities)
}

func hold(b *pathBatch) heldBatch {
	h := heldBatch{withdrawn: b.withdrawn}
	for i := range b.announced {
		r := &b.announced[i]
		if n := len(h.runs); n == 0 || !sameAttrs(&h.runs[n-1].attrs, r) {
			attrs := *r
			attrs.Prefix, attrs.PathID = netip.Prefix{}, 0
			h.runs = append(h.runs, heldRun{attrs: attrs})
		}
		run := &h.runs[len(h.runs)-1]
		run.paths = append(run.paths, heldPath{r.Prefix, r.PathID})
	}
	for i := range h.runs {
		h.runs[i].paths = slices.Clip(h.runs[i].paths)
	}
	return h
}

// release turns a held batch back into the batch it was.
func (h heldBatch) release() *pathBatch {
	n := 0
	for _, run := range h.runs {
		n += len(run.paths)
	}
	b := &pathBatch{withdrawn: h.withdrawn, announced: make([]validator.Route, 0, n)}
	for _, run := range h.runs {
		for _, p := range run.paths {
			r := run.attrs
			r.Prefix, r.PathID = p.prefix, p.id
			b.announced = append(b.announced, r)
		}
	}
	return b
}

// initialSync holds the paths of peers in their initial sync. apply hands a
// batch to the store; it is called with mu held, so batches reach the store
// in the order they arrived whichever goroutine flushes.
type initialSync struct {
	mu            sync.Mutex
	peers         map[netip.Addr]*syncPeer
	apply         func(peer netip.Addr, b *pathBatch)
	settle, limit time.Duration
}

func newInitialSync(apply func(netip.Addr, *pathBatch)) *initialSync {
	return &initialSync{peers: map[netip.Addr]*syncPeer{}, apply: apply, settle: syncSettle, limit: syncMaxHold}
}

// peerUp starts holding back the peer's paths.
func (s *initialSync) peerUp(peer netip.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked(peer)
	s.peers[peer] = &syncPeer{}
}

// update holds b back while the peer is in its initial sync, else applies it.
func (s *initialSync) update(peer netip.Addr, b *pathBatch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp, ok := s.peers[peer]
	if !ok {
		s.apply(peer, b)
		return
	}
	now := time.Now()
	if len(sp.batches) == 0 {
		sp.first = now
	}
	sp.batches = append(sp.batches, hold(b))
	if now.Sub(sp.first) >= s.limit {
		s.flushLocked(peer)
		return
	}
	if sp.timer == nil {
		sp.timer = time.AfterFunc(s.settle, func() { s.flushIfQuiet(peer, sp) })
	} else {
		sp.timer.Reset(s.settle)
	}
}

// flushIfQuiet flushes a peer whose settle timer fired (unless it was
// flushed, or went down and up again, meanwhile).
func (s *initialSync) flushIfQuiet(peer netip.Addr, sp *syncPeer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.peers[peer] == sp {
		s.flushLocked(peer)
	}
}

// endOfRIB flushes the peer's held paths, then runs eor (the store's End-of-RIB).
func (s *initialSync) endOfRIB(peer netip.Addr, eor func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked(peer)
	eor()
}

// flush hands the peer's held paths to the store and ends its initial sync.
func (s *initialSync) flush(peer netip.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked(peer)
}

func (s *initialSync) flushLocked(peer netip.Addr) {
	sp, ok := s.peers[peer]
	if !ok {
		return
	}
	delete(s.peers, peer)
	if sp.timer != nil {
		sp.timer.Stop()
	}
	for i, h := range sp.batches {
		sp.batches[i] = heldBatch{} // let the held paths go as they are released
		s.apply(peer, h.release())
	}
}
