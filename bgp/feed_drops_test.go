package bgp

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/routewarden/routewarden/internal/testprom"
)

// TestDynamicNeighborLoopbackNextHop: a real GoBGP speaker, a dynamic
// neighbor on 127.0.1.11, announces paths with a loopback next hop (its own
// address, as a node on one host does). GoBGP accepts them: both ends of the
// session are IPv4 loopback. The feed must judge them as GoBGP did, although
// the Peer Up of a dynamic neighbor gives no local address: they were all
// treated as withdrawn, silently (an established session with 0 routes).
func TestDynamicNeighborLoopbackNextHop(t *testing.T) {
	t.Parallel()
	port := freePort(t)
	c := runCollector(t, testConfig(port, false))
	a := startSpeaker(t, "127.0.1.11", 65010, port, 65000, false)
	for i := 1; i <= 3; i++ {
		a.announce(fmt.Sprintf("10.244.%d.0/24", i), "127.0.1.11")
	}
	eventually(t, "the three paths GoBGP accepted", func() bool { return len(routesOf(c.Store(), "127.0.1.11")) == 3 })
	for _, p := range c.Store().Peers() {
		if p.Address.String() == "127.0.1.11" && (p.Paths.Received != 3 || p.Paths.Accepted() != 3) {
			t.Errorf("peer counts %+v, want 3 received, 3 accepted", p.Paths)
		}
	}
	if n := testprom.Sum(t, c.metrics.pathsDropped); n != 0 {
		t.Errorf("%v paths counted dropped, want 0", n)
	}

	// A dynamic neighbor whose next hop GoBGP refuses (a multicast address:
	// RFC 7606 treat-as-withdraw): its paths are counted by peer and reason,
	// logged, and its counts say 2 received, 0 accepted.
	raw := dialRaw(t, c.addr(), rawOpen("127.0.1.12", 65010, 0))
	announceRaw(t, raw, rawAttrs("224.0.0.1"), true, netip.MustParsePrefix("10.244.4.0/24"),
		netip.MustParsePrefix("10.244.5.0/24"))
	eventually(t, "the refused paths counted", func() bool {
		return counter(c.metrics.pathsDropped, "127.0.1.12", dropTreatAsWithdraw) == 2
	})
	for _, p := range c.Store().Peers() {
		if p.Address.String() == "127.0.1.12" && (p.Paths.Received != 2 || p.Paths.Accepted() != 0 ||
			p.Paths.Dropped[dropTreatAsWithdraw] != 2) {
			t.Errorf("peer counts %+v, want 2 received, 2 dropped treat-as-withdraw", p.Paths)
		}
	}
	if !logHas(c.log, "paths GoBGP forwarded were left out of the RIB", `"peer":"127.0.1.12"`,
		`"reason":"treat-as-withdraw"`, `"paths":2`) {
		t.Errorf("no log line for the refused paths:\n%s", c.log.String())
	}
}
