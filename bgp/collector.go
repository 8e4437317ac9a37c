package bgp

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/config/oc"
	"github.com/osrg/gobgp/v4/pkg/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/gobgplog"
	"github.com/routewarden/routewarden/bgp/rib"
)

// Collector is the passive BGP peer.
type Collector struct {
	cfg     Config
	log     zerolog.Logger
	store   *rib.Store
	metrics *metrics
	srv     *server.BgpServer
	// mu guards cfg and static, which Reconfigure replaces while watches read them.
	mu     sync.RWMutex
	static map[netip.Addr]bool
	feed   *routeFeed
	// Two guards keep the collector from advertising: the never-advertise
	// policy and a global RIB without the neighbors' families. Only the tests
	// proving that each guard holds alone take one away.
	noExportPolicy, fullGlobalRIB bool
}

// NewCollector validates the configuration and prepares a collector; Run starts it.
func NewCollector(cfg Config, log zerolog.Logger, reg prometheus.Registerer) (*Collector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.checkPasswords(); err != nil {
		return nil, err
	}
	c := &Collector{cfg: cfg, log: log.With().Str("component", "bgp").Logger(), store: rib.NewStore(),
		static: map[netip.Addr]bool{}}
	for _, n := range cfg.Neighbors {
		c.static[n.Address] = true
	}
	m, err := newMetrics(reg, c.store)
	if err != nil {
		return nil, err
	}
	c.metrics = m
	return c, nil
}

// Store returns the collector's RIB.
func (c *Collector) Store() *rib.Store { return c.store }

func (c *Collector) isStatic(addr netip.Addr) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.static[addr]
}

// configuredPeer reports whether the configuration holds a peer at addr, as
// a static neighbor or in a dynamic range (a Peer Up names no peer group).
func (c *Collector) configuredPeer(addr netip.Addr) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.static[addr] || slices.ContainsFunc(c.cfg.Dynamic, func(d DynamicRange) bool { return d.Prefix.Contains(addr) })
}

// configuredSession reports whether the configuration holds the GoBGP peer a
// state event names: a static neighbor at addr (no peer group), or a member
// of the range whose peer group is group.
func (c *Collector) configuredSession(addr netip.Addr, group string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if group == "" {
		return c.static[addr]
	}
	return slices.ContainsFunc(c.cfg.Dynamic, func(d DynamicRange) bool { return groupName(d) == group })
}

// relayed reports whether the configuration declares the peer at addr a
// ToR relaying the nodes' paths: its static neighbor's setting, else that of
// the most specific dynamic range holding addr. The route feed asks at a
// session's Peer Up and after a reconfiguration, not per UPDATE.
func (c *Collector) relayed(addr netip.Addr) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, n := range c.cfg.Neighbors {
		if n.Address == addr {
			return n.Relayed
		}
	}
	bits, out := -1, false
	for _, d := range c.cfg.Dynamic {
		if d.Prefix.Contains(addr) && d.Prefix.Bits() > bits {
			bits, out = d.Prefix.Bits(), d.Relayed
		}
	}
	return out
}

// Run starts the BGP server and runs until ctx ends.
func (c *Collector) Run(ctx context.Context) error {
	srv := server.NewBgpServer(gobgplog.Option(c.log, c.metrics.observe))
	go srv.Serve()
	c.srv = srv
	defer srv.Stop() // GoBGP v4's Stop stops BGP too (StopBgp)
	feedErr, err := c.start(ctx)
	if err != nil {
		if c.feed != nil {
			c.feed.disconnect(context.Background(), srv)
		}
		if ctx.Err() != nil {
			return nil // stopped while starting: a stop, not a failure
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
			return nil
		case now := <-tick.C:
			c.store.ExpireStale(now)
		case err := <-feedErr:
			c.feed.disconnect(context.Background(), srv)
			if ctx.Err() != nil {
				return nil // the feed ended with the stop
			}
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
	global := &api.Global{
		Asn: c.cfg.ASN, RouterId: c.cfg.RouterID.String(), ListenPort: c.cfg.ListenPort, ListenAddresses: addrs,
	}
	if !c.fullGlobalRIB {
		global.Families = globalRIBFamilies
	}
	err := c.srv.StartBgp(ctx, &api.StartBgpRequest{Global: global})
	if err != nil {
		return nil, fmt.Errorf("starting BGP on port %d: %w", c.cfg.ListenPort, err)
	}
	if !c.noExportPolicy {
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

// globalRIBFamilies are the only families GoBGP's global RIB gets a table for:
// route target constraint (RTC), which no neighbor of the collector
// negotiates. The collector reads paths from the route feed, before GoBGP's
// import policy; its neighbors' IPv4 and IPv6 unicast paths stay in their
// Adj-RIB-In and never reach the global RIB, so there is nothing in it to
// select a best path for or to advertise.
//
// A global RIB with a table for the family would be pure cost, even with the
// import policy rejecting every path: GoBGP passes a rejected path on as a
// withdrawal, creating and deleting a destination for every prefix received.
// At 1M prefixes that was 40 % of what the collector allocated, and it took
// 14.9 s instead of 8.6 s to hold them (hack/bench/notes.md). GoBGP's VRF code
// expects an RTC table, so RTC is the inert choice.
var globalRIBFamilies = []uint32{uint32(oc.AfiSafiTypeToIntMap[oc.AFI_SAFI_TYPE_RTC])}

// neverAdvertise sets a global export policy that rejects everything. Without
// it GoBGP re-advertises node A's routes to node B; the policy must be set with
// SetPolicyAssignment (put into StartBgp's Global it is silently ignored).
//
// It also sets a global import policy that rejects everything, so no path
// would reach the global RIB even if it had a table for the path's family
// (globalRIBFamilies).
func neverAdvertise(ctx context.Context, srv *server.BgpServer) error {
	for _, dir := range []api.PolicyDirection{api.PolicyDirection_POLICY_DIRECTION_EXPORT, api.PolicyDirection_POLICY_DIRECTION_IMPORT} {
		err := srv.SetPolicyAssignment(ctx, &api.SetPolicyAssignmentRequest{Assignment: &api.PolicyAssignment{
			Name: "global", Direction: dir, DefaultAction: api.RouteAction_ROUTE_ACTION_REJECT}})
		if err != nil {
			return fmt.Errorf("setting the %s policy that keeps the collector from advertising: %w",
				strings.ToLower(dir.String()), err)
		}
	}
	return nil
}

// WarmedUp reports whether every static neighbor has sent End-of-RIB for
// every family its session negotiated (with no static neighbors, dynamic
// peers decide nothing here: the cluster's inventory does, WarmedUpPeers).
func (c *Collector) WarmedUp() bool { return c.WarmedUpPeers(nil) }

// WarmedUpPeers reports whether every static neighbor, and of each group at
// least one address, has sent End-of-RIB for every family its session
// negotiated. With nothing to wait for it is false: warm-up then ends by
// its timeout.
func (c *Collector) WarmedUpPeers(groups [][]netip.Addr) bool {
	c.mu.RLock()
	none := len(c.cfg.Neighbors) == 0 && len(groups) == 0
	c.mu.RUnlock()
	if none {
		return false
	}
	static, waiting := c.AwaitedPeers(groups)
	return len(static) == 0 && len(waiting) == 0
}

// DynamicRanges are the prefixes dynamic neighbors connect from.
func (c *Collector) DynamicRanges() []netip.Prefix {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]netip.Prefix, 0, len(c.cfg.Dynamic))
	for _, d := range c.cfg.Dynamic {
		out = append(out, d.Prefix)
	}
	return out
}
