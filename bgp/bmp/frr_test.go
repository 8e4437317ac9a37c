package bmp

import (
	"bufio"
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/bgp/dump"
	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/testfrr"
	"github.com/routewarden/routewarden/validator"
)

func frrBMPConfig(dir string, stationPort uint32, nodes ...netip.Addr) string {
	return testfrr.BMPConfig(dir, torAddr, stationPort, nodes...)
}

func startFRRBMP(t *testing.T, port int32, conf string) (vty func(...string) (string, error)) {
	return testfrr.StartBGPD(t, torAddr, port, conf)
}

// TestFRRSender: a real FRR bgpd peers with GoBGP speakers playing nodes and
// sends BMP (pre- and post-policy) to the station; the store holds the routes
// FRR itself holds, and the validator finds what it finds from FRR's own dump.
func TestFRRSender(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st := startStation(t)
	port := loopback.FreePort(t)
	vty := startFRRBMP(t, port, frrBMPConfig(t.TempDir(), st.port(), node1, node2))
	n1, n2 := startNode(t, ctx, node1, port), startNode(t, ctx, node2, port)
	for _, a := range []struct {
		sp interface {
			Announce(context.Context, netip.Prefix, netip.Addr) error
		}
		p, h string
	}{{n1, "10.244.1.0/24", "10.0.0.11"}, {n1, "10.244.2.0/24", "10.0.0.11"}, {n1, "fd00:10:244:1::/64", "fd00::11"},
		{n2, "10.244.9.0/24", "10.0.0.12"}} {
		if err := a.sp.Announce(ctx, netip.MustParsePrefix(a.p), netip.MustParseAddr(a.h)); err != nil {
			t.Fatal(err)
		}
	}
	const n1line = " peer=127.0.1.11 nh=10.0.0.11 as=65010 id=127.0.1.11 path=[65010] pathid=0"
	want := []string{"10.244.1.0/24" + n1line, "10.244.2.0/24" + n1line,
		"fd00:10:244:1::/64 peer=127.0.1.11 nh=fd00::11 as=65010 id=127.0.1.11 path=[65010] pathid=0",
		"10.244.9.0/24 peer=127.0.1.12 nh=10.0.0.12 as=65010 id=127.0.1.12 path=[65010] pathid=0"}
	waitRoutes(t, st.store, want)
	views := map[string]int{}
	for _, p := range st.store.MonitoredPeers() {
		views[p.BMP.View]++
		if p.BMP.Judged != (p.BMP.View == viewPost) {
			t.Errorf("peer %s: view %q judged %v, want the post-policy view judged (FRR sends both)", p.Address,
				p.BMP.View, p.BMP.Judged)
		}
	}
	if views[viewPre] != 2 || views[viewPost] != 2 {
		t.Errorf("views held: %v, want pre- and post-policy of both peers", views)
	}

	// The same findings as from FRR's own RIB.
	var fromFRR []validator.Route
	for _, af := range []string{"ipv4", "ipv6"} {
		out, err := vty("show bgp " + af + " unicast json")
		if err != nil {
			t.Fatalf("vtysh: %v: %s", err, out)
		}
		rs, _, err := dump.Read("frr.json", bufio.NewReader(strings.NewReader(out)), "frr")
		if err != nil {
			t.Fatal(err)
		}
		fromFRR = append(fromFRR, rs...)
	}
	fromBMP, _ := st.store.Routes()
	got, wantF := findings(fromBMP), findings(fromFRR)
	if len(wantF) == 0 || !slices.Equal(got, wantF) {
		t.Errorf("findings from BMP:\n  %s\nfrom FRR's RIB:\n  %s", strings.Join(got, "\n  "), strings.Join(wantF, "\n  "))
	}

	// A withdrawal and a node going away propagate.
	if err := n1.Withdraw(ctx, netip.MustParsePrefix("10.244.2.0/24"), netip.MustParseAddr("10.0.0.11")); err != nil {
		t.Fatal(err)
	}
	n2.Stop()
	waitRoutes(t, st.store, []string{"10.244.1.0/24" + n1line,
		"fd00:10:244:1::/64 peer=127.0.1.11 nh=fd00::11 as=65010 id=127.0.1.11 path=[65010] pathid=0"})
}

// findings validates routes against twoNodeCluster.
func findings(routes []validator.Route) []string {
	var out []string
	for _, f := range validator.Validate(twoNodeCluster(), routes, validator.PolicyView{}, validator.Options{Now: time.Unix(0, 0)}).Findings {
		out = append(out, fmt.Sprintf("%s %s %s: %s", f.Rule, f.Prefix, f.Node, f.Message))
	}
	return out
}

// twoNodeCluster is a two-node cluster-pool cluster: node1 (10.0.0.11) owns
// 10.244.1.0/24, node2 (10.0.0.12) 10.244.2.0/24.
func twoNodeCluster() *validator.Cluster {
	node := func(name, addr, cidr string) (validator.Node, validator.CiliumNode) {
		as := []netip.Addr{netip.MustParseAddr(addr)}
		return validator.Node{Name: name, Addresses: as, Ready: true},
			validator.CiliumNode{Name: name, Addresses: as, PodCIDRs: []netip.Prefix{netip.MustParsePrefix(cidr)}}
	}
	a, ca := node("node1", "10.0.0.11", "10.244.1.0/24")
	b, cb := node("node2", "10.0.0.12", "10.244.2.0/24")
	c := &validator.Cluster{Nodes: []validator.Node{a, b}, CiliumNodes: []validator.CiliumNode{ca, cb},
		IPAM: validator.IPAM{Mode: validator.IPAMClusterPool, PodRanges: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16"),
			netip.MustParsePrefix("fd00:10:244::/48")}}}
	return c
}

// TestFRRAddPath: a node sends ADD-PATH to FRR (which offers to receive it);
// the Peer Up OPENs say so, but FRR 8.4's Route Monitoring carries no path IDs.
func TestFRRAddPath(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := startStation(t)
	port := loopback.FreePort(t)
	startFRRBMP(t, port, frrBMPConfig(t.TempDir(), st.port(), node1))
	node := addPathNode(t, ctx, node1, port)
	for _, p := range []string{"10.244.1.0/24", "10.244.2.0/24"} {
		if err := addPath(node, nodePath(p, "10.0.0.11")); err != nil {
			t.Fatal(err)
		}
	}
	// FRR 8.4 leaves the IDs out of BMP although ADD-PATH is negotiated; both
	// prefixes may share an UPDATE, which then parses both ways.
	const line = " peer=127.0.1.11 nh=10.0.0.11 as=65010 id=127.0.1.11 path=[65010] pathid=0"
	waitRoutes(t, st.store, []string{"10.244.1.0/24" + line, "10.244.2.0/24" + line})
	if !strings.Contains(st.logs.String(), `"addPathV4":true`) {
		t.Errorf("ADD-PATH not negotiated according to the Peer Up:\n%s", st.logs.String())
	}
	if err := deletePath(node, nodePath("10.244.1.0/24", "10.0.0.11")); err != nil {
		t.Fatal(err)
	}
	b := "10.244.2.0/24" + line
	waitRoutes(t, st.store, []string{b})
}
