package bgp

import (
	"net/netip"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

func testConfig(port int32, gr bool) Config {
	return Config{ASN: 65000, RouterID: netip.MustParseAddr("192.0.2.1"), ListenAddresses: []string{"127.0.0.1"},
		ListenPort: port, GracefulRestart: gr, GraceWindow: 3 * time.Second,
		Dynamic: []DynamicRange{{Prefix: netip.MustParsePrefix("127.0.1.0/24")}}}
}

func routesOf(s *Store, peer string) map[string]validator.Route {
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
// receives no prefix, even when another speaker announces routes. The control
// case proves the check can fail: without the export policy, GoBGP does
// re-advertise node A's routes to node B.
func TestNeverAdvertises(t *testing.T) {
	for _, tc := range []struct {
		name        string
		allowExport bool
	}{{"collector", false}, {"control without the policy", true}} {
		t.Run(tc.name, func(t *testing.T) {
			port := freePort(t)
			c := startCollector(t, testConfig(port, false), tc.allowExport)
			a := startSpeaker(t, "127.0.1.21", 65010, port, 65000, false)
			b := startSpeaker(t, "127.0.1.22", 65020, port, 65000, false)
			eventually(t, "both sessions", func() bool { return a.established() && b.established() })
			a.announce("10.244.21.0/24", "10.0.0.21")
			a.announce("fd00:10:244:21::/64", "fd00::21")
			eventually(t, "A's routes at the collector", func() bool { return len(routesOf(c.Store(), "127.0.1.21")) == 2 })
			if tc.allowExport {
				eventually(t, "B to receive A's routes without the policy", func() bool { return b.received() == 2 })
				return
			}
			// Give a leak every chance to arrive: GoBGP sends updates at once.
			time.Sleep(2 * time.Second)
			if n, m := b.received(), a.received(); n != 0 || m != 0 {
				t.Fatalf("the collector advertised routes: B received %d, A received %d", n, m)
			}
		})
	}
}
