package httpapi

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// TestStatusPageRTR: the RPKI-RTR section stays hidden while the RTR server is
// off and, when on, shows the set's serial and every router with its last query.
func TestStatusPageRTR(t *testing.T) {
	sc := allClear()
	off := sc.sources()
	on := sc.sources()
	on.RTR = func() any {
		return map[string]any{"ready": true, "count": 7, "serial": 3, "sessionId": 4242,
			"held": map[string]any{"reason": "the inventory's set would withdraw 5 of the 7 served ROAs"},
			"clients": []map[string]any{{"address": "10.0.0.1:41234", "version": 1, "serial": 3, "lastQueryType": "serial",
				"connected": sc.now.Add(-time.Hour).Format(time.RFC3339), "lastQuery": sc.now.Add(-90 * time.Second).Format(time.RFC3339)}}}
	}
	d := dumpDOM(t, New("127.0.0.1:0", off, prometheus.NewRegistry(), zerolog.Nop()).Handler(), 4*time.Second)
	if !d.hidden("rtr") {
		t.Errorf("RPKI-RTR section shown while the RTR server is off: %q", d.text("rtr"))
	}
	d = dumpDOM(t, New("127.0.0.1:0", on, prometheus.NewRegistry(), zerolog.Nop()).Handler(), 4*time.Second)
	if d.hidden("rtr") {
		t.Fatal("RPKI-RTR section hidden while the RTR server is on")
	}
	for _, want := range []string{"7 ROAs at serial 3", "session 4242", "update held: the inventory's set would withdraw 5"} {
		if !strings.Contains(d.text("rtr-summary"), want) {
			t.Errorf("RPKI-RTR summary %q lacks %q", d.text("rtr-summary"), want)
		}
	}
	r, ok := d.row("rtr-clients", "client", "10.0.0.1:41234")
	if !ok || !strings.Contains(r.text, "serial query, 1m 30s ago") || !strings.Contains(r.text, "1h 0m") {
		t.Errorf("router row %q (found %v), want its last serial query 1m 30s ago, connected 1h 0m", r.text, ok)
	}
}
