package httpapi

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/validator"
)

// TestStatusPageViews renders the BMP views section in Chromium: a path the
// ToR's policy dropped is a problem row, one it changed (communities, large
// communities, local preference) is shown as changed, not as a problem.
func TestStatusPageViews(t *testing.T) {
	sc := allClear()
	src := sc.sources()
	tor := netip.MustParseAddr("127.0.0.1")
	path := func(prefix, nh, peer string, communities ...string) validator.Route {
		return validator.Route{Prefix: pfx(prefix), Attributes: &validator.Attributes{NextHop: ip(nh), Peer: ip(peer),
			PeerASN: 65010, Communities: communities}}
	}
	views := map[string][]validator.Route{
		"pre-policy": {path("10.244.1.0/24", "10.0.0.11", "127.0.1.11", "65010:1"),
			path("10.244.2.0/24", "10.0.0.12", "127.0.1.12")},
		"post-policy": {path("10.244.1.0/24", "10.0.0.11", "127.0.1.11", "65000:99"),
			path("10.244.3.0/24", "10.0.0.13", "127.0.1.13")},
	}
	views["pre-policy"] = append(views["pre-policy"], path("10.244.3.0/24", "10.0.0.13", "127.0.1.13"))
	tagged := views["post-policy"][1].Unshare()
	tagged.LargeCommunities, tagged.LocalPref, tagged.HasLocalPref = []string{"65000:1:1"}, 300, true
	src.RouteViews = func(view string) []RouteView {
		var out []RouteView
		for _, r := range views[view] {
			out = append(out, RouteView{Router: tor, View: view, Route: r})
		}
		return out
	}
	d := dumpDOM(t, New("127.0.0.1:0", src, prometheus.NewRegistry(), zerolog.Nop()).Handler(), 4*time.Second)
	if d.hidden("views") {
		t.Fatalf("views section hidden; page:\n%s", d.raw)
	}
	for _, want := range []struct{ prefix, verdict, problem, text string }{
		{"10.244.1.0/24", "changed by policy", "false", "via 10.0.0.11 · 65010:1 via 10.0.0.11 · 65000:99"},
		{"10.244.2.0/24", "dropped by policy", "true", "via 10.0.0.12 — —"},
		{"10.244.3.0/24", "changed by policy", "false", "via 10.0.0.13 via 10.0.0.13 · 65000:1:1 · local-pref 300"},
	} {
		r, ok := d.row("views-table", "prefix", want.prefix)
		if !ok {
			t.Errorf("no row for %s in %q", want.prefix, d.text("views-table"))
			continue
		}
		if r.attr["verdict"] != want.verdict || r.attr["problem"] != want.problem || !strings.Contains(r.text, want.text) {
			t.Errorf("%s: verdict %q problem %q text %q, want %q %q with %q", want.prefix, r.attr["verdict"],
				r.attr["problem"], r.text, want.verdict, want.problem, want.text)
		}
	}
}
