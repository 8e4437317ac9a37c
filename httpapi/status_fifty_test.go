package httpapi

import (
	"fmt"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

// fiftyNodes is a 50-node cluster at 3 a.m.: node07's session is down (its
// CIDR is missing), node23 announces node24's CIDR, node31 has not sent its
// IPv6 End-of-RIB; every peer is its node's address. An Alertmanager and a
// runbook are configured, and findings fired and resolved recently.
func fiftyNodes() (Sources, []monitor.Tracked) {
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	c := &validator.Cluster{IPAM: validator.IPAM{Mode: validator.IPAMClusterPool,
		PodRanges: []netip.Prefix{pfx("10.244.0.0/16")}}}
	var routes []validator.Route
	var peers []Peer
	for i := 1; i <= 50; i++ {
		name, addr := fmt.Sprintf("node%02d", i), ip(fmt.Sprintf("10.0.0.%d", i))
		cidr := pfx(fmt.Sprintf("10.244.%d.0/24", i))
		c.Nodes = append(c.Nodes, validator.Node{Name: name, Addresses: []netip.Addr{addr}, Ready: true})
		c.CiliumNodes = append(c.CiliumNodes, validator.CiliumNode{Name: name, Addresses: []netip.Addr{addr},
			PodCIDRs: []netip.Prefix{cidr}})
		p := Peer{Address: addr, ASN: 65001, RouterID: addr.String(), State: "established", Since: now.Add(-26 * time.Hour),
			Families: []string{"ipv4-unicast", "ipv6-unicast"}, EndOfRIB: []string{"ipv4-unicast", "ipv6-unicast"}}
		switch i {
		case 7:
			p.State, p.Since, p.EndOfRIB = "active", now.Add(-11*time.Minute), nil
			peers = append(peers, p)
			continue
		case 23:
			routes = append(routes, validator.Route{Prefix: pfx("10.244.24.0/24"),
				Attributes: &validator.Attributes{NextHop: addr, Peer: addr, PeerASN: 65001}})
		case 31:
			p.EndOfRIB = []string{"ipv4-unicast"}
		}
		p.Routes = 1
		peers = append(peers, p)
		routes = append(routes, validator.Route{Prefix: cidr,
			Attributes: &validator.Attributes{NextHop: addr, Peer: addr, PeerASN: 65001}})
	}
	var tracked []monitor.Tracked
	for i, f := range validator.Validate(c, routes, validator.PolicyView{}, validator.Options{Now: now}).Findings {
		first := now.Add(-time.Duration(10+i) * time.Minute)
		tracked = append(tracked, monitor.Tracked{Finding: f, FirstSeen: first, Firing: true,
			FiringSince: first.Add(time.Minute)})
	}
	resolved := monitor.Tracked{Finding: validator.Finding{Rule: validator.RuleStaleRoute,
		Severity: validator.SeverityCritical, Prefix: pfx("10.244.99.0/24"), Message: "10.244.99.0/24 was stale."}}
	var transitions []monitor.Transition
	transitions = append(transitions, monitor.Transition{Kind: monitor.Fired, Finding: resolved, At: now.Add(-3 * time.Hour)},
		monitor.Transition{Kind: monitor.Resolved, Finding: resolved, At: now.Add(-2 * time.Hour)})
	for _, t := range tracked {
		transitions = append(transitions, monitor.Transition{Kind: monitor.Fired, Finding: t, At: t.FiringSince})
	}
	return Sources{
		State: func() monitor.State {
			return monitor.State{At: now.Add(-time.Second), Findings: tracked,
				Summary:   validator.Validate(c, routes, validator.PolicyView{}, validator.Options{Now: now}).Summary,
				Inventory: validator.InventoryStatus{Synced: true, Available: true}}
		},
		Routes:      func() []validator.Route { return routes },
		Peers:       func() []Peer { return peers },
		Cluster:     func() (*validator.Cluster, error) { return c, nil },
		Transitions: func() []monitor.Transition { return transitions },
		Links: Links{Cluster: "prod", RunbookBase: "https://runbooks.example/routewarden",
			Alertmanager: "https://alertmanager.example"},
		Ready: func() (bool, string) { return true, "" },
		Now:   func() time.Time { return now },
	}, tracked
}

// TestStatusPageAt50Nodes renders the page for 50 nodes in Chromium: findings
// come first with runbook and silence links, problem nodes and peers lead
// their tables, peers and nodes link to each other, End-of-RIB waits are
// explained, the recent transitions show, and ?only=problems and ?q= filter.
func TestStatusPageAt50Nodes(t *testing.T) {
	src, tracked := fiftyNodes()
	h := New("127.0.0.1:0", src, prometheus.NewRegistry(), zerolog.Nop()).Handler()
	d := dumpDOM(t, h, 4*time.Second)
	if d.body["state"] != "ok" {
		t.Fatalf("page state %q: %s", d.body["state"], d.text("error"))
	}
	if f, n := strings.Index(d.raw, `id="findings"`), strings.Index(d.raw, `id="nodes"`); f < 0 || f > n {
		t.Errorf("the findings table (at %d) must come before the nodes (at %d)", f, n)
	}
	rows := d.rows("findings")
	if len(rows) != len(tracked) || len(tracked) < 2 {
		t.Fatalf("%d finding rows, want %d (at least 2)", len(rows), len(tracked))
	}
	for _, r := range rows {
		for _, want := range []string{`href="https://runbooks.example/routewarden#` + r.attr["rule"] + `"`,
			`href="https://alertmanager.example/#/silences/new?filter=%7Balertname%3D%22`, `href="#node-` + r.attr["node"] + `"`} {
			if !strings.Contains(r.raw, want) {
				t.Errorf("finding %s %s lacks the link %s: %s", r.attr["rule"], r.attr["prefix"], want, r.raw)
			}
		}
	}
	nodes := d.rows("nodes")
	if len(nodes) != 50 || nodes[0].attr["node"] != "node23" || nodes[0].attr["status"] != "wrong" ||
		nodes[1].attr["node"] != "node07" || nodes[1].attr["status"] != "missing" {
		t.Errorf("%d node rows, first %v %v: want 50, problems first (node23 wrong, node07 missing)", len(nodes),
			nodes[0].attr, nodes[min(1, len(nodes)-1)].attr)
	}
	if r, _ := d.row("nodes", "node", "node23"); !strings.Contains(r.raw, `href="#peer-10.0.0.23"`) {
		t.Errorf("node23 does not link to its peer: %s", r.raw)
	}
	peers := d.rows("peers")
	if len(peers) != 50 || peers[0].attr["peer"] != "10.0.0.7" || peers[1].attr["peer"] != "10.0.0.31" {
		t.Errorf("%d peer rows, first %v, %v: want the down session, then the one without End-of-RIB", len(peers),
			peers[0].attr, peers[min(1, len(peers)-1)].attr)
	}
	if r, _ := d.row("peers", "peer", "10.0.0.23"); !strings.Contains(r.raw, `href="#node-node23"`) {
		t.Errorf("peer 10.0.0.23 does not link to node23: %s", r.raw)
	}
	if r, _ := d.row("peers", "peer", "10.0.0.31"); !strings.Contains(r.text, "waiting for ipv6-unicast") ||
		!strings.Contains(r.text, "until End-of-RIB arrives") {
		t.Errorf("peer 10.0.0.31's missing End-of-RIB is not explained: %q", r.text)
	}
	ts := d.rows("transitions")
	if len(ts) != len(tracked)+2 || ts[len(ts)-1].attr["kind"] != "fired" || ts[len(ts)-2].attr["kind"] != "resolved" ||
		!strings.Contains(ts[len(ts)-2].text, "2026-11-22 01:00:00 UTC") || !strings.Contains(ts[len(ts)-2].text, "2h 0m ago") {
		t.Errorf("%d transition rows, want %d, newest first, with times", len(ts), len(tracked)+2)
	}

	srv := httptest.NewServer(h)
	defer srv.Close()
	filtered := func(query string) map[string][]string {
		d := parseDOM(string(chromium(t, srv.URL+"/"+query, "--virtual-time-budget=4000", "--dump-dom")))
		shown := map[string][]string{}
		for table, key := range map[string]string{"findings": "prefix", "nodes": "node", "peers": "peer"} {
			for _, r := range d.rows(table) {
				if !r.hidden && r.attr[key] != "" { // a row of data, not a table's message
					shown[table] = append(shown[table], r.attr[key])
				}
			}
		}
		return shown
	}
	for query, want := range map[string]string{
		// node24 has a finding too: duplicate-origin, its CIDR announced by itself and node23.
		"?only=problems": "map[findings:[10.244.7.0/24 10.244.24.0/24 10.244.24.0/24] nodes:[node23 node07 node24] " +
			"peers:[10.0.0.7 10.0.0.31]]",
		"?q=node23":    "map[findings:[10.244.24.0/24 10.244.24.0/24] nodes:[node23] peers:[10.0.0.23]]",
		"?q=10.244.7.": "map[findings:[10.244.7.0/24] nodes:[node07]]",
	} {
		if got := fmt.Sprint(filtered(query)); got != want {
			t.Errorf("%s shows %s, want %s", query, got, want)
		}
	}

	// Following a link to a row the filters hide clears them.
	d = parseDOM(string(chromium(t, srv.URL+"/?q=node2#peer-10.0.0.31", "--virtual-time-budget=4000", "--dump-dom")))
	if r, ok := d.row("peers", "peer", "10.0.0.31"); !ok || r.hidden || len(d.rows("nodes")) != 50 || d.rows("nodes")[49].hidden {
		t.Errorf("a link to peer 10.0.0.31 under ?q=node2 leaves it hidden")
	}
	// Without JavaScript the page says so and links the JSON; the filter form is a plain GET form.
	if _, page := get(t, srv.URL+"/"); !regexp.MustCompile(`<noscript>[\s\S]*which is off here[\s\S]*`+
		`href="api/v1/findings\?firing=true"[\s\S]*</noscript>`).MatchString(page) ||
		!strings.Contains(page, `<form id="filters" method="get"`) {
		t.Errorf("without JavaScript the page does not point to the JSON answers")
	}

	shot := filepath.Join(t.TempDir(), "status-50-nodes.png")
	if *update {
		shot, _ = filepath.Abs("../docs/status-page-50-nodes.png")
	}
	chromium(t, srv.URL+"/", "--virtual-time-budget=4000", "--window-size=1280,2000", "--screenshot="+shot)
	if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
}
