package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// TestProblemFilters asks /nodes and /peers of the 50-node cluster what the
// status page asks: problems first, only problems, the others, words; and a
// problems-first list pages like any other.
func TestProblemFilters(t *testing.T) {
	src, _ := fiftyNodes()
	srv := httptest.NewServer(New("127.0.0.1:0", src, prometheus.NewRegistry(), zerolog.Nop()).Handler())
	defer srv.Close()
	// list answers the names (nodes) or addresses (peers) of one page, the total and the continue token.
	list := func(path string) (int, []string, int, string) {
		t.Helper()
		code, body := get(t, srv.URL+"/api/v1/"+path)
		var r struct {
			Nodes    []nodeJSON `json:"nodes"`
			Peers    []peerJSON `json:"peers"`
			Total    int        `json:"total"`
			Continue string     `json:"continue"`
		}
		if code != 200 {
			return code, nil, 0, ""
		}
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range r.Nodes {
			out = append(out, n.Name)
		}
		for _, p := range r.Peers {
			out = append(out, p.Address)
		}
		return code, out, r.Total, r.Continue
	}
	cases := []struct {
		path  string
		code  int
		items string
		total int
	}{
		{"nodes?order=problems&limit=4", 200, "[node23 node07 node24 node01]", 50},
		{"nodes?problems=true", 200, "[node07 node23 node24]", 3},
		{"nodes?problems=false&limit=2", 200, "[node01 node02]", 47},
		{"nodes?problems=true&order=problems", 200, "[node23 node07 node24]", 3},
		{"nodes?q=NODE23", 200, "[node23]", 1},
		{"nodes?q=10.244.7.", 200, "[node07]", 1},
		{"nodes?q=missing-route", 200, "[node07]", 1},
		{"nodes?q=notready", 200, "[]", 0},
		{"nodes?q=node2+10.0.0.21", 200, "[node21]", 1},
		{"peers?order=problems&limit=3", 200, "[10.0.0.7 10.0.0.31 10.0.0.10]", 50},
		{"peers?problems=true", 200, "[10.0.0.31 10.0.0.7]", 2},
		{"peers?state=active", 200, "[10.0.0.7]", 1},
		{"peers?state=established&limit=1", 200, "[10.0.0.10]", 49},
		{"peers?q=as65001+node07", 200, "[10.0.0.7]", 1},
		{"nodes?order=size", 400, "[]", 0},
		{"peers?problems=maybe", 400, "[]", 0},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			code, items, total, _ := list(tc.path)
			if got := fmt.Sprint(orEmpty(items)); code != tc.code || got != tc.items || total != tc.total {
				t.Errorf("%d %s of %d, want %d %s of %d", code, got, total, tc.code, tc.items, tc.total)
			}
		})
	}

	var walked []string
	for q := "nodes?order=problems&problems=true&limit=2"; ; {
		_, items, _, next := list(q)
		walked = append(walked, items...)
		if next == "" {
			break
		}
		q = "nodes?order=problems&problems=true&limit=2&continue=" + url.QueryEscape(next)
	}
	if fmt.Sprint(walked) != "[node23 node07 node24]" {
		t.Errorf("problem nodes page by page: %v", walked)
	}
}
