package httpapi

import (
	"fmt"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

// scaleNodes is a healthy cluster of n nodes, each peering from its address
// and announcing its CIDR, but for the nodes missing says (a finding each).
func scaleNodes(n int, missing func(i int) bool) Sources {
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	c := &validator.Cluster{IPAM: validator.IPAM{Mode: validator.IPAMClusterPool,
		PodRanges: []netip.Prefix{pfx("10.0.0.0/8")}}}
	var routes []validator.Route
	var peers []Peer
	for i := 0; i < n; i++ {
		name, addr := fmt.Sprintf("node-%05d", i), ip(fmt.Sprintf("172.16.%d.%d", i/256, i%256))
		cidr := pfx(fmt.Sprintf("10.%d.%d.0/24", i/256, i%256))
		c.Nodes = append(c.Nodes, validator.Node{Name: name, Addresses: []netip.Addr{addr}, Ready: true})
		c.CiliumNodes = append(c.CiliumNodes, validator.CiliumNode{Name: name, Addresses: []netip.Addr{addr},
			PodCIDRs: []netip.Prefix{cidr}})
		peers = append(peers, Peer{Address: addr, ASN: 65001, RouterID: addr.String(), State: "established",
			Since: now.Add(-time.Hour), Families: []string{"ipv4-unicast"}, EndOfRIB: []string{"ipv4-unicast"}, Routes: 1})
		if !missing(i) {
			routes = append(routes, validator.Route{Prefix: cidr,
				Attributes: &validator.Attributes{NextHop: addr, Peer: addr, PeerASN: 65001}})
		}
	}
	res := validator.Validate(c, routes, validator.PolicyView{}, validator.Options{Now: now})
	var tracked []monitor.Tracked
	for _, f := range res.Findings {
		tracked = append(tracked, monitor.Tracked{Finding: f, FirstSeen: now, Firing: true, FiringSince: now})
	}
	return Sources{
		State: func() monitor.State {
			return monitor.State{At: now, Findings: tracked, Summary: res.Summary,
				Inventory: validator.InventoryStatus{Synced: true, Available: true}}
		},
		Routes:      func() []validator.Route { return routes },
		Peers:       func() []Peer { return peers },
		Cluster:     func() (*validator.Cluster, error) { return c, nil },
		Transitions: func() []monitor.Transition { return nil },
		Ready:       func() (bool, string) { return true, "" },
		Now:         func() time.Time { return now },
	}
}

// TestStatusPageAt5000Nodes renders the page of a 5,000-node cluster in
// Chromium and logs how long it took beside a 50-node page (BENCHMARKS.md,
// "Cluster scale"). The time is a measurement, not asserted: only that the
// page rendered, with its finding. With -update it writes docs/status-5000.png.
func TestStatusPageAt5000Nodes(t *testing.T) {
	for _, n := range []int{50, 5000} {
		h := New("127.0.0.1:0", scaleNodes(n, func(i int) bool { return i == 7 }), prometheus.NewRegistry(), zerolog.Nop()).Handler()
		start := time.Now()
		d := dumpDOM(t, h, 4*time.Second)
		took := time.Since(start)
		if d.body["state"] != "ok" {
			t.Fatalf("%d nodes: page state %q: %s", n, d.body["state"], d.text("error"))
		}
		if rows := d.rows("findings"); len(rows) != 1 {
			t.Errorf("%d nodes: %d finding rows, want 1 (node-00007's missing CIDR)", n, len(rows))
		}
		t.Logf("%d nodes: Chromium loaded and rendered the page (headless, --dump-dom) in %s; %d node rows, %d peer rows",
			n, took.Round(time.Millisecond), len(d.rows("nodes")), len(d.rows("peers")))
		if n == 5000 && *update {
			srv := httptest.NewServer(h)
			shot, _ := filepath.Abs("../docs/status-5000.png")
			chromium(t, srv.URL+"/", "--virtual-time-budget=4000", "--window-size=1400,1600", "--screenshot="+shot)
			srv.Close()
			t.Logf("wrote %s", shot)
		}
	}
}
