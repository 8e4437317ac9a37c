package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/validator"
	"github.com/routewarden/routewarden/validator/continuous"
)

func testServer(ready bool) *httptest.Server {
	f1 := validator.Finding{Rule: validator.RuleStaleRoute, Severity: validator.SeverityCritical,
		Prefix: netip.MustParsePrefix("10.244.3.0/24"), Message: "stale"}
	f2 := validator.Finding{Rule: validator.RuleMissingRoute, Severity: validator.SeverityCritical,
		Prefix: netip.MustParsePrefix("10.244.1.0/24"), Node: "node1", Message: "missing"}
	src := Sources{
		State: func() continuous.State {
			return continuous.State{Findings: []continuous.Tracked{{Finding: f1, Firing: true}, {Finding: f2}}}
		},
		Routes: func() []validator.Route {
			return []validator.Route{
				{Prefix: netip.MustParsePrefix("10.244.1.0/24"),
					Attributes: &validator.Attributes{Peer: netip.MustParseAddr("127.0.1.1")}},
				{Prefix: netip.MustParsePrefix("10.244.2.0/24"),
					Attributes: &validator.Attributes{Peer: netip.MustParseAddr("127.0.1.2")}}}
		},
		Peers: func() any { return []string{"127.0.1.1"} },
		Nodes: func() any { return []string{"node1"} },
		Ready: func() (bool, string) { return ready, "informers not synced yet" },
	}
	return httptest.NewServer(New("127.0.0.1:0", src, prometheus.NewRegistry(), zerolog.Nop()).Handler())
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
		count    int // findings or routes in the answer, -1 to skip
	}{
		{"/healthz", 200, "ok", -1},
		{"/readyz", 200, "ok", -1},
		{"/api/v1/findings", 200, `"rule": "stale-route"`, 2},
		{"/api/v1/findings?firing=true", 200, `"firing": true`, 1},
		{"/api/v1/findings?node=node1", 200, `"node": "node1"`, 1},
		{"/api/v1/findings?rule=foreign-cidr", 200, `"findings": []`, 0},
		{"/api/v1/routes?prefix=10.244.2.0/24", 200, "127.0.1.2", 1},
		{"/api/v1/routes?peer=127.0.1.1", 200, "127.0.1.1", 1},
		{"/api/v1/routes?prefix=bogus", 400, "prefix", -1},
		{"/api/v1/peers", 200, "127.0.1.1", -1},
		{"/api/v1/nodes", 200, "node1", -1},
		{"/metrics", 200, "", -1},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			code, body := get(t, srv.URL+tc.path)
			if code != tc.code || !strings.Contains(body, tc.contains) {
				t.Fatalf("%d %s", code, body)
			}
			if tc.count < 0 {
				return
			}
			var findings struct {
				Findings []any `json:"findings"`
			}
			var routes []any
			n := 0
			if strings.Contains(tc.path, "findings") {
				_ = json.Unmarshal([]byte(body), &findings)
				n = len(findings.Findings)
			} else {
				_ = json.Unmarshal([]byte(body), &routes)
				n = len(routes)
			}
			if n != tc.count {
				t.Errorf("%d items, want %d", n, tc.count)
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
