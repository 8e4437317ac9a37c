package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator/convergence"
)

// testConvergence is a withdrawal that took 3s, an announcement that took
// 0.4s and a VIP announcement pending for 12s (over its 5s budget).
func testConvergence(at time.Time) monitor.Convergence {
	cidr := convergence.Key{Kind: convergence.PodCIDR, Prefix: netip.MustParsePrefix("10.244.3.0/24"), Node: "node3"}
	cidr1 := convergence.Key{Kind: convergence.PodCIDR, Prefix: netip.MustParsePrefix("10.244.1.0/24"), Node: "node1"}
	vip := convergence.Key{Kind: convergence.VIP, Prefix: netip.MustParsePrefix("192.0.2.10/32"), Node: "node1"}
	since := at.Add(-time.Minute)
	return monitor.Convergence{
		Completed: []convergence.Completed{
			{Change: convergence.Change{Key: cidr, Direction: convergence.Withdraw, Since: since},
				At: since.Add(3 * time.Second), Duration: 3 * time.Second},
			{Change: convergence.Change{Key: cidr1, Direction: convergence.Announce, Since: since},
				At: since.Add(400 * time.Millisecond), Duration: 400 * time.Millisecond}},
		Pending: []convergence.Change{{Key: vip, Direction: convergence.Announce, Since: at.Add(-12 * time.Second)}},
		Budgets: convergence.DefaultBudgets(90*time.Second, 120*time.Second),
	}
}

func TestConvergenceEndpoint(t *testing.T) {
	srv := httptest.NewServer(New("127.0.0.1:0", testSources(true), prometheus.NewRegistry(), zerolog.Nop()).Handler())
	defer srv.Close()
	for _, tc := range []struct {
		query string
		code  int
		want  []string // state/direction/node of the changes, in order
		slow  []bool
	}{
		{"", 200, []string{"pending/announce/node1", "completed/announce/node1", "completed/withdraw/node3"},
			[]bool{true, false, false}},
		{"?state=completed&direction=withdraw", 200, []string{"completed/withdraw/node3"}, []bool{false}},
		{"?type=pod-cidr&limit=1", 200, []string{"completed/announce/node1"}, []bool{false}},
		{"?prefix=192.0.2.10/32", 200, []string{"pending/announce/node1"}, []bool{true}},
		{"?type=bgp", 400, nil, nil},
	} {
		code, body := get(t, srv.URL+"/api/v1/convergence"+tc.query)
		if code != tc.code {
			t.Errorf("%q: status %d, want %d: %s", tc.query, code, tc.code, body)
			continue
		}
		if code != 200 {
			continue
		}
		var page convergencePage
		if err := json.Unmarshal([]byte(body), &page); err != nil {
			t.Fatal(err)
		}
		if len(page.Changes) != len(tc.want) {
			t.Errorf("%q: %d changes, want %d: %s", tc.query, len(page.Changes), len(tc.want), body)
			continue
		}
		for i, c := range page.Changes {
			if got := c.State + "/" + c.Direction + "/" + c.Node; got != tc.want[i] || c.Slow != tc.slow[i] {
				t.Errorf("%q: change %d is %s slow=%v, want %s slow=%v", tc.query, i, got, c.Slow, tc.want[i], tc.slow[i])
			}
		}
	}
}
