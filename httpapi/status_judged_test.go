package httpapi

import (
	"fmt"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

// healthy is four nodes, each announcing its CIDR, no finding.
func healthy() *scenario {
	sc := allClear()
	sc.nodes, sc.chips = map[string]string{}, map[string]string{}
	sc.cluster.Nodes, sc.cluster.CiliumNodes, sc.routes, sc.peers = nil, nil, nil, nil
	for i := 1; i <= 4; i++ {
		name, addr, cidr := fmt.Sprintf("node%d", i), ip(fmt.Sprintf("10.0.0.1%d", i)), pfx(fmt.Sprintf("10.244.%d.0/24", i))
		peer := ip(fmt.Sprintf("127.0.1.1%d", i))
		sc.cluster.Nodes = append(sc.cluster.Nodes, validator.Node{Name: name, Addresses: []netip.Addr{addr}, Ready: true})
		sc.cluster.CiliumNodes = append(sc.cluster.CiliumNodes, validator.CiliumNode{Name: name,
			Addresses: []netip.Addr{addr}, PodCIDRs: []netip.Prefix{cidr}})
		sc.routes = append(sc.routes, validator.Route{Prefix: cidr, Attributes: &validator.Attributes{NextHop: addr,
			Peer: peer, PeerASN: 65001, ASPath: []uint32{65001}}})
		sc.peers = append(sc.peers, Peer{Address: peer, ASN: 65001, State: "established", Routes: 1,
			Since: sc.now.Add(-26 * time.Hour), EndOfRIB: []string{"ipv4-unicast"}, Families: []string{"ipv4-unicast"}})
		sc.nodes[name] = "ok"
	}
	return sc
}

// TestStatusPageSaysWhatIsKnown renders the page warming up, frozen and
// healthy: "no findings, the routes match" and a node's "OK" only once the
// last validation judged it; warm-up names the time left and the peers it
// waits for, a frozen page since when. With -update it writes the three
// screenshots to docs/.
func TestStatusPageSaysWhatIsKnown(t *testing.T) {
	warm := everyRule(t)
	warm.findings = []monitor.Tracked{}
	frozen := everyRule(t) // the findings of two nodes, as they were when the inventory went away
	var kept []monitor.Tracked
	for _, f := range frozen.findings {
		if f.Rule == validator.RuleForeignCIDR || f.Rule == validator.RuleMissingRoute {
			kept = append(kept, f)
		}
	}
	frozen.findings = kept
	cases := []struct {
		name   string
		sc     *scenario
		state  func(*monitor.State)
		notice string            // "" for hidden
		table  string            // in the findings table
		nodes  map[string]string // node → status
		shot   string
	}{
		{"warm-up", warm, func(st *monitor.State) {
			st.WarmingUp, st.WarmupEnds = true, warm.now.Add(90*time.Second)
			st.Awaiting = []monitor.AwaitedPeer{{Node: "node2", Addresses: []netip.Addr{ip("10.0.0.12")}},
				{Node: "node5", Addresses: []netip.Addr{ip("10.0.0.15")}}}
		}, "Not judged yet: warming up, nothing is judged or fires (judging starts in 1m 30s, at 2026-11-22 05:01:30 UTC " +
			"at the latest; sooner once End-of-RIB comes from node2 (10.0.0.12), node5 (10.0.0.15)).",
			"Not judged yet: warming up", map[string]string{"node1": "unjudged", "node2": "unjudged", "node3": "unjudged",
				"node5": "unjudged", "node6": "unjudged"}, "../docs/status-warmup.png"},
		{"frozen", frozen, func(st *monitor.State) {
			st.Frozen = true
			st.Inventory = validator.InventoryStatus{Synced: true, Reason: "watch of nodes: connection refused",
				Since: frozen.now.Add(-4*time.Minute - 10*time.Second)}
		}, "Findings frozen since 2026-11-22 04:55:50 UTC (4m 10s ago): the cluster inventory is unavailable " +
			"(watch of nodes: connection refused).", "",
			map[string]string{"node1": "frozen", "node2": "missing", "node3": "wrong", "node5": "frozen", "node6": "frozen"},
			"../docs/status-frozen.png"},
		{"healthy", healthy(), nil, "", "No findings: the routes match the cluster.",
			map[string]string{"node1": "ok", "node2": "ok", "node3": "ok", "node4": "ok"}, "../docs/status-healthy.png"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.sc.sources()
			if base := src.State; tc.state != nil {
				src.State = func() monitor.State { st := base(); tc.state(&st); return st }
			}
			h := New("127.0.0.1:0", src, prometheus.NewRegistry(), zerolog.Nop()).Handler()
			d := dumpDOM(t, h, 4*time.Second)
			if tc.notice == "" != d.hidden("notice") || !strings.Contains(d.text("notice"), tc.notice) {
				t.Errorf("notice (hidden %v) %q, want %q", d.hidden("notice"), d.text("notice"), tc.notice)
			}
			if got := d.text("findings"); !strings.Contains(got, tc.table) ||
				tc.name != "healthy" && strings.Contains(got, "the routes match") {
				t.Errorf("findings table %q, want %q", got, tc.table)
			}
			for name, status := range tc.nodes {
				r, ok := d.row("nodes", "node", name)
				if !ok || r.attr["status"] != status {
					t.Errorf("node %s: status %q (%q), want %q", name, r.attr["status"], r.text, status)
				}
				if tc.name == "frozen" && !strings.Contains(r.text, "frozen since 2026-11-22 04:55:50 UTC") {
					t.Errorf("node %s: %q does not say since when it is frozen", name, r.text)
				}
			}
			if *update {
				srv := httptest.NewServer(h)
				defer srv.Close()
				abs, _ := filepath.Abs(tc.shot)
				chromium(t, srv.URL+"/", "--virtual-time-budget=4000", "--window-size=1400,1000", "--screenshot="+abs)
				if st, err := os.Stat(abs); err != nil || st.Size() < 10000 {
					t.Fatalf("screenshot %s: %v", abs, err)
				}
			}
		})
	}
}

// TestStatusPageLinks: an alert's generatorURL is the anchor of its finding's
// row, a finding on a later page is shown when linked to, and the footer
// links the RTR server's ROAs only while it serves them.
func TestStatusPageLinks(t *testing.T) {
	sc := everyRule(t)
	var linked validator.Finding // a warning: after the critical fillers, on the second page
	for _, f := range sc.findings {
		if f.Severity == validator.SeverityWarning {
			linked = f.Finding
			break
		}
	}
	for i := 0; i < 100; i++ { // a page of the status page's findings table
		sc.findings = append(sc.findings, monitor.Tracked{Finding: validator.Finding{Rule: validator.RuleStaleRoute,
			Severity: validator.SeverityCritical, Prefix: pfx(fmt.Sprintf("10.%d.%d.0/24", 100+i/250, i%250)),
			Message: "filler"}, FirstSeen: sc.now})
	}
	h := New("127.0.0.1:0", sc.sources(), prometheus.NewRegistry(), zerolog.Nop()).Handler()
	srv := httptest.NewServer(h)
	defer srv.Close()
	link := FindingURL(srv.URL, linked)
	if want := "/#finding-" + string(linked.Rule) + "-"; !strings.Contains(link, want) {
		t.Fatalf("generatorURL %s lacks %s", link, want)
	}
	d := parseDOM(string(chromium(t, link, "--virtual-time-budget=4000", "--dump-dom")))
	if open, _ := d.element(FindingAnchor(linked)); open == "" {
		t.Errorf("the page opened at %s shows no row with id %q", link, FindingAnchor(linked))
	}
	if !d.hidden("roas-link") {
		t.Errorf("the footer links the ROAs while the RTR server is off")
	}
}
