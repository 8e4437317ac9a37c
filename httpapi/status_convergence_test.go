package httpapi

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// TestStatusPageConvergence renders the Convergence section in a real browser:
// the pending VIP announcement first (slow: past its 5s budget, a problem), then
// the completed changes, newest first, with their times and the budgets.
func TestStatusPageConvergence(t *testing.T) {
	d := dumpDOM(t, New("127.0.0.1:0", testSources(true), prometheus.NewRegistry(), zerolog.Nop()).Handler(), 4*time.Second)
	rows := d.rows("convergence")
	want := []struct{ state, problem, text string }{
		{"pending", "true", "waiting 12s"},
		{"completed", "false", "0.40s"},
		{"completed", "false", "3.00s"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d convergence rows, want %d", len(rows), len(want))
	}
	for i, w := range want {
		r := rows[i]
		if r.attr["state"] != w.state || r.attr["problem"] != w.problem || !strings.Contains(r.text, w.text) {
			t.Errorf("row %d: %v %q, want state %s, problem %s, text %q", i, r.attr, r.text, w.state, w.problem, w.text)
		}
	}
	if got := d.text("convergence-budgets"); !strings.Contains(got, "withdraw 210s (pod CIDR)") {
		t.Errorf("budgets %q", got)
	}
}
