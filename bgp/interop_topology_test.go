package bgp

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/validator"
)

// nodeSpeaker is a GoBGP speaker playing a node, and what it announces.
type nodeSpeaker struct {
	local  string
	routes []string // "prefix@nexthop"
}

// startNodes starts every speaker, connecting to peer:port (a collector or a
// ToR), and announces their routes.
func startNodes(t testing.TB, nodes []nodeSpeaker, peer netip.Addr, port int32) {
	t.Helper()
	for _, n := range nodes {
		cfg := speaker.Config{Local: netip.MustParseAddr(n.local), ASN: interopNodeASN, CollectorAddr: peer,
			CollectorPort: port, CollectorASN: interopASN}
		s, err := speaker.Start(context.Background(), cfg, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Stop)
		for _, r := range n.routes {
			p, nh, _ := strings.Cut(r, "@")
			if err := s.Announce(context.Background(), netip.MustParsePrefix(p), netip.MustParseAddr(nh)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// announced is every "prefix@nexthop" the speakers announce, sorted.
func announced(nodes []nodeSpeaker) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.routes...)
	}
	slices.Sort(out)
	return out
}

// held is every path the collector holds as "prefix@nexthop", sorted.
func held(c *Collector) []string {
	rs, _ := c.Store().Routes()
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Prefix.String()+"@"+r.NextHop.String())
	}
	slices.Sort(out)
	return out
}

// waitHeld waits until the collector holds exactly the announced paths.
func waitHeld(t testing.TB, c *Collector, want []string, alive func() error) {
	t.Helper()
	var dead error
	interopWait(t, "the collector to hold every announced path", func() error {
		if err := alive(); err != nil {
			dead = err
			return nil
		}
		if got := held(c); !slices.Equal(got, want) {
			return fmt.Errorf("holds %q, want %q", got, want)
		}
		return nil
	})
	if dead != nil {
		t.Fatal(dead)
	}
}

// findingKeys are the findings without what legitimately differs between
// direct peering and peering through a ToR: the peer address (the ToR's) and
// the messages and hints that quote it.
func findingKeys(fs []validator.Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		nh := ""
		if f.NextHop.IsValid() {
			nh = f.NextHop.String()
		}
		out = append(out, strings.Join([]string{string(f.Rule), f.Severity.String(), f.Prefix.String(),
			orDash(f.Node), orDash(nh), orDash(f.Owner)}, " "))
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
