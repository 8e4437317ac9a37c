package bgp

import (
	"net/netip"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/wait"
	"github.com/routewarden/routewarden/validator"
)

// interopNodes are the speakers of the interop topology: a healthy node, a
// node that also announces a neighbour's CIDR (so that CIDR has two origins:
// only ADD-PATH carries both through a ToR), and a decommissioned machine
// still announcing the CIDR that was re-allocated to a new node.
var interopNodes = []nodeSpeaker{
	{local: "127.0.1.11", routes: []string{"10.244.1.0/24@10.0.0.11", "fd00:10:244:1::/64@fd00::11"}},
	{local: "127.0.1.12", routes: []string{"10.244.2.0/24@10.0.0.12", "10.244.3.0/24@10.0.0.12"}},
	{local: "127.0.1.13", routes: []string{"10.244.3.0/24@10.0.0.13"}},
	{local: "127.0.1.14", routes: []string{"10.244.4.0/24@10.0.0.14"}},
}

// interopCluster is the cluster truth: node1..node3 at 10.0.0.1N, and node4
// (10.0.0.24), whose CIDR the old machine at 10.0.0.14 still announces.
func interopCluster() *validator.Cluster {
	c := &validator.Cluster{IPAM: validator.IPAM{Mode: validator.IPAMClusterPool,
		PodRanges: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16"), netip.MustParsePrefix("fd00:10:244::/48")}}}
	for _, n := range []struct {
		name  string
		addrs []string
		cidrs []string
	}{
		{"node1", []string{"10.0.0.11", "fd00::11"}, []string{"10.244.1.0/24", "fd00:10:244:1::/64"}},
		{"node2", []string{"10.0.0.12"}, []string{"10.244.2.0/24"}},
		{"node3", []string{"10.0.0.13"}, []string{"10.244.3.0/24"}},
		{"node4", []string{"10.0.0.24"}, []string{"10.244.4.0/24"}},
	} {
		var addrs []netip.Addr
		for _, a := range n.addrs {
			addrs = append(addrs, netip.MustParseAddr(a))
		}
		var cidrs []netip.Prefix
		for _, p := range n.cidrs {
			cidrs = append(cidrs, netip.MustParsePrefix(p))
		}
		c.Nodes = append(c.Nodes, validator.Node{Name: n.name, Addresses: addrs, Ready: true})
		c.CiliumNodes = append(c.CiliumNodes, validator.CiliumNode{Name: n.name, Addresses: addrs, PodCIDRs: cidrs})
	}
	return c
}

// interopWant is what the validator must find, in either topology: node1 is
// healthy; node2 announces node3's CIDR, which therefore has two origins; the
// old machine's route is stale, and node4's CIDR is not announced by node4.
var interopWant = []string{
	"missing-route critical 10.244.4.0/24 node4 - node4",
	"foreign-cidr critical 10.244.3.0/24 node2 10.0.0.12 node3",
	"duplicate-origin warning 10.244.3.0/24 node3 - node3",
	"stale-route critical 10.244.4.0/24 - 10.0.0.14 node4",
}

func interopWait(t testing.TB, what string, cond func() error) {
	t.Helper()
	wait.For(t, what, 30*time.Second, cond)
}

// TestInteropToR: the same speakers announce the same routes, once peering
// directly with a collector and once through a real ToR (FRR, then BIRD) that
// passes every path (ADD-PATH) with the nodes' next hops unchanged to the
// collector, its iBGP neighbor. Attribution by next hop must give the same
// findings both ways.
func TestInteropToR(t *testing.T) {
	t.Parallel()
	cluster := interopCluster()
	want := announced(interopNodes)

	var direct []string
	t.Run("direct", func(t *testing.T) {
		port := freePort(t)
		c := startCollector(t, testConfig(port, false), false)
		startNodes(t, interopNodes, netip.MustParseAddr("127.0.0.1"), port)
		waitHeld(t, c, want, func() error { return nil })
		rs, _ := c.Store().Routes()
		direct = sortedCopy(findingKeys(validator.Validate(cluster, rs, validator.PolicyView{}, validator.Options{}).Findings))
		if w := sortedCopy(interopWant); !slices.Equal(direct, w) {
			t.Fatalf("direct peering findings\n got: %q\nwant: %q", direct, w)
		}
	})
	if direct == nil {
		t.FailNow()
	}

	for _, tc := range []struct {
		name  string
		addr  string
		start func(testing.TB, torSetup) *tor
	}{
		{"frr", "127.0.2.1", startFRR},
		{"bird", "127.0.2.2", startBIRD},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // its own ToR address, collector and ports; after direct
			torAddr := netip.MustParseAddr(tc.addr)
			cport := freePort(t)
			cfg := Config{ASN: interopASN, RouterID: netip.MustParseAddr("192.0.2.1"),
				ListenAddresses: []string{"127.0.0.1"}, ListenPort: cport,
				Neighbors: []Neighbor{{Address: torAddr, PeerSettings: PeerSettings{ASN: interopASN}}}}
			c := startCollector(t, cfg, false)
			r := tc.start(t, torSetup{dir: shortTempDir(t), addr: torAddr, port: freePort(t),
				nodes: netip.MustParsePrefix("127.0.1.0/24"), collectorAddr: netip.MustParseAddr("127.0.0.1"),
				collectorPort: cport})
			startNodes(t, interopNodes, r.addr, r.port)
			r.logOnFailure(t)
			waitHeld(t, c, want, r.d.alive)

			// One peer, two paths of one prefix: only ADD-PATH does that (the
			// store keys a peer's paths by prefix and path ID). FRR 8.4 may
			// first send a new path with path ID 0 and replace it with its
			// allocated ID milliseconds later, so 0 is a valid ID here.
			rs, _ := c.Store().Routes()
			ids := map[uint32]bool{}
			for _, rt := range rs {
				if rt.Peer != torAddr {
					t.Errorf("%s@%s came from %s, not from the ToR", rt.Prefix, rt.NextHop, rt.Peer)
				}
				if rt.Prefix.String() == "10.244.3.0/24" {
					ids[rt.PathID] = true
				}
			}
			if len(ids) != 2 {
				t.Errorf("10.244.3.0/24 has paths with IDs %v: ADD-PATH was not used", ids)
			}
			// Sorted: the canonical order breaks ties by peer address.
			got := sortedCopy(findingKeys(validator.Validate(cluster, rs, validator.PolicyView{}, validator.Options{}).Findings))
			if !slices.Equal(got, direct) {
				t.Errorf("findings through %s differ from direct peering\n got: %q\nwant: %q", tc.name, got, direct)
			}
		})
	}
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// shortTempDir is a temporary directory with a short path: it holds the
// daemons' control sockets, whose paths must fit in sun_path (108 bytes).
func shortTempDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if len(filepath.Join(dir, "bird.ctl")) < 100 {
		return dir
	}
	t.Fatalf("temporary directory %s is too long for a control socket path", dir)
	return ""
}
