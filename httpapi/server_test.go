package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

func testServer(ready bool) *httptest.Server {
	return httptest.NewServer(New("127.0.0.1:0", testSources(ready), prometheus.NewRegistry(), zerolog.Nop()).Handler())
}

// testSources: node1 (10.0.0.11, peer 127.0.1.1) announces its CIDR, a
// machine no longer in the cluster announces another; two findings.
func testSources(ready bool) Sources {
	at := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	f1 := validator.Finding{Rule: validator.RuleStaleRoute, Severity: validator.SeverityCritical,
		Prefix: netip.MustParsePrefix("10.244.3.0/24"), NextHop: netip.MustParseAddr("10.0.0.99"),
		Peer: netip.MustParseAddr("127.0.1.2"), Owner: "node3",
		Message: "10.244.3.0/24 is announced via next hop 10.0.0.99 (peer 127.0.1.2), which belongs to no current node.",
		Hint:    "Stop the BGP speaker (cilium-agent) on the host behind 10.0.0.99, or shut its session on the ToR."}
	f2 := validator.Finding{Rule: validator.RuleMissingRoute, Severity: validator.SeverityWarning,
		Prefix: netip.MustParsePrefix("10.244.1.0/24"), Node: "node1", Owner: "node1",
		Message: "node1's CIDR 10.244.1.0/24 is not announced by node1.", Hint: "Check node1's BGP session."}
	t1 := monitor.Tracked{Finding: f1, FirstSeen: at.Add(-time.Hour), Firing: true, FiringSince: at.Add(-50 * time.Minute)}
	t2 := monitor.Tracked{Finding: f2, FirstSeen: at.Add(-time.Minute)}
	node1 := netip.MustParseAddr("10.0.0.11")
	return Sources{
		State: func() monitor.State {
			return monitor.State{At: at.Add(-2 * time.Second), Findings: []monitor.Tracked{t1, t2},
				Inventory: validator.InventoryStatus{Synced: true, Available: true, Since: at.Add(-26 * time.Hour)},
				Summary: validator.Summary{Nodes: 1, CiliumNodes: 1, Routes: 2, Prefixes: 2,
					IPAMMode: validator.IPAMClusterPool, IPAMModeSource: "cilium-config", Findings: 2,
					BySeverity: map[string]int{"critical": 1, "warning": 1},
					ByRule:     map[string]int{"missing-route": 1, "stale-route": 1}}}
		},
		Routes: func() []validator.Route {
			return []validator.Route{
				{Prefix: netip.MustParsePrefix("10.244.1.0/24"), Attributes: &validator.Attributes{NextHop: node1,
					Peer: netip.MustParseAddr("127.0.1.1"), PeerASN: 65001, ASPath: []uint32{65001}}},
				{Prefix: netip.MustParsePrefix("10.244.3.0/24"), Attributes: &validator.Attributes{
					NextHop: netip.MustParseAddr("10.0.0.99"), Peer: netip.MustParseAddr("127.0.1.2"),
					Communities: []string{"65000:1"}, LargeCommunities: []string{"65000:1:1"}, LocalPref: 200,
					HasLocalPref: true}}}
		},
		RouteViews: func(view string) []RouteView {
			return []RouteView{{Router: netip.MustParseAddr("10.0.0.1"), View: view, Route: validator.Route{
				Prefix: netip.MustParsePrefix("10.244.1.0/24"), Attributes: &validator.Attributes{NextHop: node1,
					Peer: netip.MustParseAddr("127.0.1.1"), PeerASN: 65001, ASPath: []uint32{65001}}}}}
		},
		Peers: func() []Peer {
			return []Peer{{Address: netip.MustParseAddr("127.0.1.2"), State: "active", Since: at,
				StaleUntil: at.Add(2 * time.Minute), RestartTime: 120 * time.Second, Received: 5,
				Dropped: map[string]int64{"treat-as-withdraw": 2}},
				{Address: node1, ASN: 65001, State: "established", Since: at, EndOfRIB: []string{"ipv4-unicast"},
					BMP: &PeerBMP{Router: netip.MustParseAddr("10.0.0.1"), View: "pre-policy"}}}
		},
		Cluster: func() (*validator.Cluster, error) {
			return &validator.Cluster{Nodes: []validator.Node{{Name: "node1", Addresses: []netip.Addr{node1},
				Ready: true}}}, nil
		},
		Transitions: func() []monitor.Transition {
			return []monitor.Transition{{Kind: monitor.Fired, Finding: t2, At: at.Add(-2 * time.Minute)},
				{Kind: monitor.Resolved, Finding: t2, At: at.Add(-90 * time.Second)},
				{Kind: monitor.Fired, Finding: t1, At: at.Add(-50 * time.Minute)}}
		},
		Links: Links{Cluster: "prod", RunbookBase: "https://runbooks.example/routewarden",
			Alertmanager: "https://alertmanager.example/"},
		Ready:       func() (bool, string) { return ready, "informers not synced yet" },
		Now:         func() time.Time { return at },
		Convergence: func() monitor.Convergence { return testConvergence(at) },
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestEndpoints(t *testing.T) {
	srv := testServer(true)
	defer srv.Close()
	cases := []struct {
		path     string
		code     int
		contains string
		count    int // items in the answer's list, -1 to skip
	}{
		{"/healthz", 200, "ok", -1},
		{"/readyz", 200, "ok", -1},
		{"/api/v1/findings", 200, `"rule": "stale-route"`, 2},
		{"/api/v1/findings?firing=true", 200, `"firing": true`, 1},
		{"/api/v1/findings?firing=false", 200, `"firing": false`, 1},
		{"/api/v1/findings?node=node1", 200, `"node": "node1"`, 1},
		{"/api/v1/findings?severity=warning", 200, `"severity": "warning"`, 1},
		{"/api/v1/findings?peer=127.0.1.2", 200, `"peer": "127.0.1.2"`, 1},
		{"/api/v1/findings?rule=foreign-cidr", 200, `"findings": []`, 0},
		{"/api/v1/findings?rule=bogus", 400, `valid values: stale-route, foreign-cidr`, -1},
		{"/api/v1/findings?severity=high", 400, `valid values: info, warning, critical`, -1},
		{"/api/v1/findings?firing=yes", 400, `firing: \"yes\" is neither true nor false`, -1},
		{"/api/v1/findings?rul=stale-route", 400,
			`valid parameters: rule, severity, node, prefix, peer, firing, limit, continue`, -1},
		{"/api/v1/findings?rule=stale-route&rule=missing-route", 400, `give it once`, -1},
		{"/api/v1/transitions", 200, `"kind": "fired"`, 3},
		{"/api/v1/transitions?kind=resolved", 200, `"kind": "resolved"`, 1},
		{"/api/v1/transitions?kind=cleared", 400, `valid values: fired, resolved`, -1},
		{"/api/v1/routes", 200, `"communities": []`, 2},
		{"/api/v1/routes?prefix=10.244.0.0/16", 200, `"peerAsn": 65001`, 2},
		{"/api/v1/routes?prefix=10.244.3.0/24", 200, "127.0.1.2", 1},
		{"/api/v1/routes?peer=127.0.1.1", 200, `"node": "node1"`, 1},
		{"/api/v1/routes?node=node1", 200, `"prefix": "10.244.1.0/24"`, 1},
		{"/api/v1/routes?prefix=bogus", 400, "prefix: ", -1},
		{"/api/v1/routes?peer=node1", 400, "peer: ", -1},
		{"/api/v1/routes?rule=stale-route", 400, "valid parameters: node, peer, prefix, view, limit, continue", -1},
		{"/api/v1/routes?limit=0", 400, `limit: \"0\" is not a whole number from 1 to 5000`, -1},
		{"/api/v1/routes?limit=5001", 400, "from 1 to 5000", -1},
		{"/api/v1/routes?continue=garbage", 400, "not a token this API gave", -1},
		{"/api/v1/peers", 200, `"endOfRib": []`, 2},
		// What a peer sent against what was accepted, and why the rest was left out.
		{"/api/v1/peers", 200, `"received": 5,
      "accepted": 3,
      "dropped": {
        "treat-as-withdraw": 2
      }`, 2},
		{"/api/v1/peers?node=node1", 200, `"node": "node1"`, 1},
		{"/api/v1/nodes", 200, `"peers": [`, 1},
		{"/api/v1/nodes?node=node2", 200, `"nodes": []`, 0},
		{"/api/v1/openapi.json", 200, `"openapi": "3.0.3"`, -1},
		{"/metrics", 200, "", -1},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			code, body := get(t, srv.URL+tc.path)
			if code != tc.code || !strings.Contains(body, tc.contains) {
				t.Fatalf("%d %s, want %d and %s", code, body, tc.code, tc.contains)
			}
			if code != 200 && !strings.HasPrefix(body, `{"error":`) {
				t.Errorf("an error answer is not JSON: %s", body)
			}
			if tc.count < 0 {
				return
			}
			var lists map[string]json.RawMessage
			_ = json.Unmarshal([]byte(body), &lists)
			var items []any
			list := strings.TrimPrefix(strings.SplitN(tc.path, "?", 2)[0], "/api/v1/")
			if err := json.Unmarshal(lists[list], &items); err != nil || len(items) != tc.count {
				t.Errorf("%d %s, want %d (%v)", len(items), list, tc.count, err)
			}
		})
	}
}

func TestNotReadyAndReadOnly(t *testing.T) {
	srv := testServer(false)
	defer srv.Close()
	if code, body := get(t, srv.URL+"/readyz"); code != 503 || !strings.Contains(body, "informers not synced") {
		t.Errorf("readyz: %d %s", code, body)
	}
	resp, err := http.Post(srv.URL+"/api/v1/findings", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST was answered %d: the API must be read-only", resp.StatusCode)
	}
}
