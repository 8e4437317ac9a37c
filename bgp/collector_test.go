package bgp

import (
	"net/netip"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/validator"
)

func testConfig(port int32, gr bool) Config {
	return Config{ASN: 65000, RouterID: netip.MustParseAddr("192.0.2.1"), ListenAddresses: []string{"127.0.0.1"},
		ListenPort: port, GracefulRestart: gr, GraceWindow: 3 * time.Second,
		Dynamic: []DynamicRange{{Prefix: netip.MustParsePrefix("127.0.1.0/24")}}}
}

func routesOf(s *rib.Store, peer string) map[string]validator.Route {
	out := map[string]validator.Route{}
	rs, _ := s.Routes()
	for _, r := range rs {
		if r.Peer.String() == peer {
			out[r.Prefix.String()] = r
		}
	}
	return out
}

// TestCollectorReceivesRoutes: real speakers announce IPv4 and IPv6 routes with
// their node's next hop; the store holds them as the validator's routes.
func TestCollectorReceivesRoutes(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	c := startCollector(t, testConfig(port, true), false)
	a := startSpeaker(t, "127.0.1.11", 65010, port, 65000, true)
	a.announce("10.244.1.0/24", "10.0.0.11")
	a.announce("fd00:10:244:1::/64", "fd00::11")
	eventually(t, "both routes", func() bool { return len(routesOf(c.Store(), "127.0.1.11")) == 2 })
	got := routesOf(c.Store(), "127.0.1.11")
	v4, v6 := got["10.244.1.0/24"], got["fd00:10:244:1::/64"]
	if v4.NextHop.String() != "10.0.0.11" || v6.NextHop.String() != "fd00::11" || len(v4.ASPath) != 1 ||
		v4.ASPath[0] != 65010 || v4.RouterID.String() != "127.0.1.11" {
		t.Errorf("routes not translated faithfully: %+v %+v", v4, v6)
	}
	eventually(t, "End-of-RIB (graceful restart negotiated)", func() bool {
		for _, p := range c.Store().Peers() {
			if p.Address.String() == "127.0.1.11" && len(p.EndOfRIB) == 2 && p.Dynamic {
				return true
			}
		}
		return false
	})

	a.withdraw("10.244.1.0/24", "10.0.0.11")
	eventually(t, "the withdrawal", func() bool { return len(routesOf(c.Store(), "127.0.1.11")) == 1 })
}

// TestPeerDownDropsRoutes: GoBGP sends no withdrawals when a session ends, so the
// collector must drop the peer's routes itself.
func TestPeerDownDropsRoutes(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	c := startCollector(t, testConfig(port, false), false)
	a := startSpeaker(t, "127.0.1.12", 65010, port, 65000, false)
	a.announce("10.244.2.0/24", "10.0.0.12")
	eventually(t, "the route", func() bool { return len(routesOf(c.Store(), "127.0.1.12")) == 1 })
	a.stop()
	eventually(t, "the routes of the peer that went down to be dropped", func() bool {
		return len(routesOf(c.Store(), "127.0.1.12")) == 0
	})
}

// TestNeverAdvertises is the collector's safety property: a connected speaker
// receives no prefix, even when another speaker announces routes, in every
// configuration variant. Two guards hold it (bgp/collector.go): the export
// policy and a global RIB without the neighbors' families, and each holds it
// alone. The control case proves the check can fail: without both, GoBGP does
// re-advertise node A's routes to node B.
func TestNeverAdvertises(t *testing.T) {
	t.Parallel()
	static := func(c *Config) {
		c.Dynamic = nil
		c.Neighbors = []Neighbor{{Address: netip.MustParseAddr("127.0.1.21"), PeerSettings: PeerSettings{ASN: 65010}},
			{Address: netip.MustParseAddr("127.0.1.22"), PeerSettings: PeerSettings{ASN: 65020}}}
	}
	cases := []struct {
		name              string
		noPolicy, fullRIB bool // a guard taken away
		gr                bool
		mutate            func(*Config)
		asnA, asnB        uint32
	}{
		{name: "control without either guard", noPolicy: true, fullRIB: true, asnA: 65010, asnB: 65020},
		{name: "the export policy alone", fullRIB: true, asnA: 65010, asnB: 65020},
		{name: "the global RIB's families alone", noPolicy: true, asnA: 65010, asnB: 65020},
		{name: "dynamic range, eBGP", asnA: 65010, asnB: 65020},
		{name: "dynamic range, graceful restart", gr: true, asnA: 65010, asnB: 65020},
		{name: "dynamic range, iBGP speakers", asnA: 65000, asnB: 65000},
		{name: "fixed-ASN range", asnA: 65010, asnB: 65010,
			mutate: func(c *Config) { c.Dynamic[0].ASN = 65010 }},
		{name: "static neighbors", mutate: static, asnA: 65010, asnB: 65020},
		{name: "static neighbors with hold time and max-prefix", asnA: 65010, asnB: 65020, mutate: func(c *Config) {
			static(c)
			for i := range c.Neighbors {
				c.Neighbors[i].HoldTime, c.Neighbors[i].MaxPrefixes = 9*time.Second, 100
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // a collector of its own on its own port
			port := freePort(t)
			cfg := testConfig(port, tc.gr)
			if tc.mutate != nil {
				tc.mutate(&cfg)
			}
			c := startCollectorGuarded(t, cfg, tc.noPolicy, tc.fullRIB)
			a := startSpeaker(t, "127.0.1.21", tc.asnA, port, 65000, tc.gr)
			b := startSpeaker(t, "127.0.1.22", tc.asnB, port, 65000, tc.gr)
			eventually(t, "both sessions", func() bool { return a.established() && b.established() })
			a.announce("10.244.21.0/24", "10.0.0.21")
			a.announce("fd00:10:244:21::/64", "fd00::21")
			b.announce("10.244.22.0/24", "10.0.0.22")
			eventually(t, "the routes at the collector", func() bool {
				return len(routesOf(c.Store(), "127.0.1.21")) == 2 && len(routesOf(c.Store(), "127.0.1.22")) == 1
			})
			if tc.noPolicy && tc.fullRIB {
				eventually(t, "B to receive A's routes without the guards", func() bool { return b.received() >= 2 })
				if globalDestinations(c) == 0 {
					t.Fatal("without the guards GoBGP's global RIB is empty: the check below could not fail")
				}
				return
			}
			// Give a leak every chance to arrive: GoBGP sends updates at once.
			time.Sleep(2 * time.Second)
			if n, m := b.received(), a.received(); n != 0 || m != 0 {
				t.Fatalf("the collector advertised routes: B received %d, A received %d", n, m)
			}
			// No copy in the global RIB, so no best path selected: it has no
			// table for the families, or (its families guard taken away) the
			// import policy keeps every path out.
			if n := globalDestinations(c); n != 0 {
				t.Fatalf("GoBGP's global RIB holds %d destinations", n)
			}
		})
	}
}

// globalDestinations counts the destinations in the collector's GoBGP global
// RIB, IPv4 and IPv6 unicast (a family without a table has none).
func globalDestinations(c *Collector) int {
	n := 0
	for _, f := range []gobgp.Family{gobgp.RF_IPv4_UC, gobgp.RF_IPv6_UC} {
		_ = c.srv.ListPath(apiutil.ListPathRequest{TableType: api.TableType_TABLE_TYPE_GLOBAL, Family: f},
			func(gobgp.NLRI, []*apiutil.Path) { n++ })
	}
	return n
}

// TestUnauthorizedPeersGetNoSession: a speaker outside every configured range,
// or with another ASN than its range requires, never gets a session.
func TestUnauthorizedPeersGetNoSession(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	cfg := testConfig(port, false)
	cfg.Dynamic[0].ASN = 65010
	c := startCollector(t, cfg, false)
	ok := startSpeaker(t, "127.0.1.61", 65010, port, 65000, false)
	outside := startSpeaker(t, "127.0.9.61", 65010, port, 65000, false)
	wrongASN := startSpeaker(t, "127.0.1.62", 65099, port, 65000, false)
	outside.announce("10.244.61.0/24", "10.0.0.61")
	wrongASN.announce("10.244.62.0/24", "10.0.0.62")
	eventually(t, "the authorized session", ok.established)
	time.Sleep(3 * time.Second) // several connect retries of the others
	if outside.established() || wrongASN.established() {
		t.Fatalf("an unauthorized speaker got a session: outside %v, wrong ASN %v", outside.established(), wrongASN.established())
	}
	if rs, _ := c.Store().Routes(); len(rs) != 0 {
		t.Fatalf("routes from unauthorized speakers: %v", rs)
	}
}

// TestWarmedUpWaitsForEveryFamily: a static neighbor's table is complete once
// each family its session negotiated (and still carries) has sent End-of-RIB
// (a GoBGP speaker may send one family's before the other family's paths);
// when the families are not known, at its first End-of-RIB.
func TestWarmedUpWaitsForEveryFamily(t *testing.T) {
	t.Parallel()
	peer := netip.MustParseAddr("127.0.1.31")
	cfg := testConfig(179, false)
	cfg.Dynamic = nil
	cfg.Neighbors = []Neighbor{{Address: peer, PeerSettings: PeerSettings{ASN: 65010}}}
	for _, tc := range []struct {
		name     string
		families []string
		eors     []string
		want     bool
	}{
		{name: "no session yet"},
		{name: "established, no End-of-RIB", families: []string{"ipv4-unicast", "ipv6-unicast"}},
		{name: "one family of two", families: []string{"ipv4-unicast", "ipv6-unicast"},
			eors: []string{"ipv4-unicast"}},
		{name: "both families", families: []string{"ipv4-unicast", "ipv6-unicast"},
			eors: []string{"ipv6-unicast", "ipv4-unicast"}, want: true},
		{name: "families unknown", eors: []string{"ipv4-unicast"}, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCollector(cfg, zerolog.Nop(), prometheus.NewRegistry())
			if err != nil {
				t.Fatal(err)
			}
			if tc.families != nil || tc.eors != nil {
				c.store.Up(rib.Direct(peer), rib.PeerInfo{Address: peer, ASN: 65010, Families: tc.families})
			}
			for _, f := range tc.eors {
				c.store.EndOfRIB(rib.Direct(peer), f, f == "ipv6-unicast")
			}
			if got := c.WarmedUp(); got != tc.want {
				t.Errorf("WarmedUp() = %v, want %v", got, tc.want)
			}
			// Whom it waits for: the neighbor until its table is complete.
			if static, _ := c.AwaitedPeers(nil); (len(static) == 0) != tc.want || len(static) > 0 && static[0] != peer {
				t.Errorf("AwaitedPeers = %v, want the neighbor awaited: %v", static, !tc.want)
			}
		})
	}
}
