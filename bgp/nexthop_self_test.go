package bgp

import (
	"context"
	"net/netip"
	"testing"

	"github.com/routewarden/routewarden/bgp/speaker"
)

// TestNextHopSelfAsCilium: an IPv6 pod CIDR originated as Cilium originates it (next hop
// unspecified, over an IPv4 session: GoBGP sends the session's local address IPv4-mapped) is
// received with the node's session address as next hop, as the interop harness (interop/cilium)
// saw from Cilium's own control plane.
func TestNextHopSelfAsCilium(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	c := startCollector(t, testConfig(port, false), false)
	s := startSpeaker(t, "127.0.1.51", 65010, port, 65000, false)
	eventually(t, "the session", s.established)
	prefix := netip.MustParsePrefix("fd00:10:244:51::/64")
	if err := s.Announce(context.Background(), prefix, speaker.NextHopSelf(prefix)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the route", func() bool { return len(routesOf(c.Store(), "127.0.1.51")) == 1 })
	if r := routesOf(c.Store(), "127.0.1.51")[prefix.String()]; r.NextHop != netip.MustParseAddr("127.0.1.51") {
		t.Errorf("%s: next hop %s, want the session's local address 127.0.1.51", prefix, r.NextHop)
	}
}
