package bgp

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// Collector is the passive BGP peer.
type Collector struct {
	cfg     Config
	log     zerolog.Logger
	store   *Store
	metrics *metrics
	srv     *server.BgpServer
	// mu guards cfg and static, which Reconfigure replaces while watches read them.
	mu     sync.RWMutex
	static map[netip.Addr]bool
	// sync holds back each peer's initial table until its End-of-RIB.
	sync *initialSync
	feed *routeFeed
	// allowExport leaves out the never-advertise policy; only the test that
	// proves the policy matters sets it.
	allowExport bool
}

// NewCollector validates the configuration and prepares a collector; Run starts it.
func NewCollector(cfg Config, log zerolog.Logger, reg prometheus.Registerer) (*Collector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.checkPasswords(); err != nil {
		return nil, err
	}
	c := &Collector{cfg: cfg, log: log.With().Str("component", "bgp").Logger(), store: NewStore(),
		static: map[netip.Addr]bool{}}
	for _, n := range cfg.Neighbors {
		c.static[n.Address] = true
	}
	c.sync = newInitialSync(storeSync{c.store})
	m, err := newMetrics(reg, c.store)
	if err != nil {
		return nil, err
	}
	c.metrics = m
	return c, nil
}

// Store returns the collector's route store.
func (c *Collector) Store() *Store { return c.store }

func (c *Collector) isStatic(addr netip.Addr) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.static[addr]
}

// Run starts the BGP server and runs until ctx ends.
func (c *Collector) Run(ctx context.Context) error {
	srv := server.NewBgpServer(server.LoggerOption(c.metrics.countErrors(gobgpLogger{c.log}, c.familyDisabled)))
	go srv.Serve()
	c.srv = srv
	defer srv.Stop()
	feedErr, err := c.start(ctx)
	if err != nil {
		if c.feed != nil {
			c.feed.disconnect(context.Background(), srv)
		}
		return err
	}
	c.log.Info().Uint32("asn", c.cfg.ASN).Int32("port", c.cfg.ListenPort).Strs("listen", c.cfg.ListenAddresses).
		Int("neighbors", len(c.cfg.Neighbors)).Int("dynamicRanges", len(c.cfg.Dynamic)).Msg("BGP collector listening")
	// Graceful-restart stale paths are dropped when their peer's time runs out.
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			c.feed.disconnect(stopCtx, srv)
			if err := srv.StopBgp(stopCtx, &api.StopBgpRequest{}); err != nil {
				c.log.Warn().Err(err).Msg("stopping BGP")
			}
			return nil
		case now := <-tick.C:
			c.store.ExpireStale(now)
		case err := <-feedErr:
			c.feed.disconnect(context.Background(), srv)
			return err
		}
	}
}

// start starts GoBGP and the route feed, then adds the neighbors; the channel
// reports the feed's end.
func (c *Collector) start(ctx context.Context) (<-chan error, error) {
	addrs := c.cfg.ListenAddresses
	if len(addrs) == 0 {
		addrs = []string{"0.0.0.0", "::"}
	}
	err := c.srv.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{
		Asn: c.cfg.ASN, RouterId: c.cfg.RouterID.String(), ListenPort: c.cfg.ListenPort, ListenAddresses: addrs,
	}})
	if err != nil {
		return nil, fmt.Errorf("starting BGP on port %d: %w", c.cfg.ListenPort, err)
	}
	if !c.allowExport {
		if err := neverAdvertise(ctx, c.srv); err != nil {
			return nil, err
		}
	}
	feed, err := newRouteFeed(c)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.feed = feed
	c.mu.Unlock()
	feedErr := make(chan error, 1)
	go func() { feedErr <- feed.run(ctx) }()
	if err := c.watch(ctx, feed); err != nil {
		return nil, err
	}
	if err := feed.connect(ctx, c.srv); err != nil {
		return nil, err
	}
	for _, n := range c.cfg.Neighbors {
		if err := c.srv.AddPeer(ctx, &api.AddPeerRequest{Peer: c.peer(n)}); err != nil {
			return nil, fmt.Errorf("adding neighbor %s: %w", n.Address, err)
		}
	}
	for _, d := range c.cfg.Dynamic {
		if err := c.addRange(ctx, d); err != nil {
			return nil, err
		}
	}
	return feedErr, nil
}

// neverAdvertise sets a global export policy that rejects everything. Without
// it GoBGP re-advertises node A's routes to node B; the policy must be set with
// SetPolicyAssignment (put into StartBgp's Global it is silently ignored).
//
// It also sets a global import policy that rejects everything: the collector
// reads paths from the route feed (before import policy), so GoBGP's
// global RIB and its best-path selection would be pure cost — a second copy of
// every path and a decision per prefix. Rejected on import, a path stays in
// the Adj-RIB-In only (the ingest benchmark, BENCHMARKS.md, measures the gain).
func neverAdvertise(ctx context.Context, srv *server.BgpServer) error {
	for _, dir := range []api.PolicyDirection{api.PolicyDirection_EXPORT, api.PolicyDirection_IMPORT} {
		err := srv.SetPolicyAssignment(ctx, &api.SetPolicyAssignmentRequest{Assignment: &api.PolicyAssignment{
			Name: "global", Direction: dir, DefaultAction: api.RouteAction_REJECT}})
		if err != nil {
			return fmt.Errorf("setting the %s policy that keeps the collector from advertising: %w",
				strings.ToLower(dir.String()), err)
		}
	}
	return nil
}

// WarmedUp reports whether every static neighbor has sent End-of-RIB (with no
// static neighbors, dynamic peers decide nothing: warm-up ends by timeout).
func (c *Collector) WarmedUp() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if len(c.cfg.Neighbors) == 0 {
		return false
	}
	eor := map[netip.Addr]bool{}
	for _, p := range c.store.Peers() {
		eor[p.Address] = len(p.EndOfRIB) > 0
	}
	for _, n := range c.cfg.Neighbors {
		if !eor[n.Address] {
			return false
		}
	}
	return true
}

// familyDisabled drops a peer's paths of a family GoBGP disabled for its
// session after a malformed MP_REACH/MP_UNREACH (RFC 7606 §7.11 AFI/SAFI
// disable): RFC 4760 §7 removes the family's routes, but GoBGP keeps them in
// its Adj-RIB-In without a withdrawal, so they would linger in the Store.
func (c *Collector) familyDisabled(peer netip.Addr, family string) {
	switch family {
	case "ipv4-unicast", "ipv6-unicast":
		c.store.DropFamily(peer, family == "ipv6-unicast")
	}
}
