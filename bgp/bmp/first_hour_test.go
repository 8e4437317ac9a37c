package bmp

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/internal/loopback"
)

// firstHourFRR is the FRR configuration docs/first-hour.md shows for BMP from a ToR.
func firstHourFRR(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/first-hour.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- first-hour: frr-bmp -->\n```\n(.*?)```\n").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/first-hour.md has no <!-- first-hour: frr-bmp --> block")
	}
	return string(m[1])
}

// TestFirstHourFRRExample runs the first-hour guide's FRR configuration as written, with its addresses moved to
// the loopback (the nodes' range to node1 and node2's, the station to the test's): the nodes' sessions come up
// through the listen range and routewarden's station holds their routes, pre- and post-policy.
func TestFirstHourFRRExample(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st := startStation(t)
	conf := firstHourFRR(t)
	for _, r := range []struct{ from, to string }{
		{"bgp listen range 10.0.0.0/24", "bgp listen range " + node1.String() + "/24"},
		{"bmp connect 10.0.0.250 port 11019", fmt.Sprintf("bmp connect 127.0.0.1 port %d", st.port())},
	} {
		if !strings.Contains(conf, r.from) {
			t.Fatalf("the guide's FRR configuration no longer has %q", r.from)
		}
		conf = strings.Replace(conf, r.from, r.to, 1)
	}
	port := loopback.FreePort(t)
	startFRRBMP(t, port, conf)
	n1, n2 := startNode(t, ctx, node1, port), startNode(t, ctx, node2, port)
	announceTwoNodes(t, ctx, n1, n2)
	waitRoutes(t, st.store, []string{
		"10.244.1.0/24 peer=127.0.1.11 nh=10.0.0.11 as=65010 id=127.0.1.11 path=[65010] pathid=0",
		"fd00:10:244:1::/64 peer=127.0.1.11 nh=fd00::11 as=65010 id=127.0.1.11 path=[65010] pathid=0",
		"10.244.2.0/24 peer=127.0.1.12 nh=10.0.0.12 as=65010 id=127.0.1.12 path=[65010] pathid=0"})
	views := map[string]int{}
	for _, p := range st.store.MonitoredPeers() {
		views[p.BMP.View]++
	}
	if views[viewPre] != 2 || views[viewPost] != 2 {
		t.Errorf("views held: %v, want pre- and post-policy of both nodes", views)
	}
}

// announceTwoNodes has node1 announce 10.244.1.0/24 and fd00:10:244:1::/64 and node2 10.244.2.0/24, with the
// nodes' own next hops (10.0.0.11, fd00::11, 10.0.0.12).
func announceTwoNodes(t *testing.T, ctx context.Context, n1, n2 *speaker.Speaker) {
	t.Helper()
	for _, a := range []struct {
		sp     *speaker.Speaker
		p, via string
	}{{n1, "10.244.1.0/24", "10.0.0.11"}, {n1, "fd00:10:244:1::/64", "fd00::11"}, {n2, "10.244.2.0/24", "10.0.0.12"}} {
		if err := a.sp.Announce(ctx, netip.MustParsePrefix(a.p), netip.MustParseAddr(a.via)); err != nil {
			t.Fatal(err)
		}
	}
}
