package bgp

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/routewarden/routewarden/bgp/bgptest"
	"github.com/routewarden/routewarden/internal/wait"
)

// What happened to a prefix announced well-formed, then again in a broken UPDATE.
const (
	outReset     = "session reset" // NOTIFICATION sent, session down, the peer's routes dropped
	outWithdrawn = "withdrawn"     // treat-as-withdraw: the prefix is gone, the session stays up
	outIgnored   = "ignored"       // the broken UPDATE changed nothing: the old route stays
	outAccepted  = "accepted"      // the broken UPDATE was applied as if well-formed
)

// malformedCases is what GoBGP v4.8.0 does with each broken UPDATE, asserted
// below, beside what RFC 7606 (and RFC 4271 for the header) asks. Where they
// differ, docs/reliability-bgp.md says why it matters.
var malformedCases = []struct {
	kind      bgptest.Kind
	out       string
	code, sub uint8  // the NOTIFICATION, for outReset
	action    string // routewarden_bgp_update_errors_total{action}, "" for none
	rfc       string
	deviation bool
	v6        bool
}{
	{kind: bgptest.ShortMessageLength, out: outReset, code: 1, sub: 2, action: "session-reset", rfc: "RFC 4271 §6.1: NOTIFICATION 1/2"},
	{kind: bgptest.OversizedMessage, out: outReset, code: 1, sub: 2, action: "session-reset", rfc: "RFC 4271 §6.1: NOTIFICATION 1/2"},
	{kind: bgptest.TotalAttrLengthOverrun, out: outReset, code: 3, sub: 1, action: "session-reset", rfc: "RFC 7606 §4: session reset"},
	{kind: bgptest.AttrLengthOverrun, out: outIgnored, action: "treat-as-withdraw", rfc: "RFC 7606 §4: treat-as-withdraw", deviation: true},
	{kind: bgptest.BadAttrFlags, out: outWithdrawn, action: "treat-as-withdraw", rfc: "RFC 7606 §3c: treat-as-withdraw"},
	{kind: bgptest.InvalidOrigin, out: outWithdrawn, action: "treat-as-withdraw", rfc: "RFC 7606 §7.1: treat-as-withdraw"},
	{kind: bgptest.TruncatedNLRI, out: outReset, code: 3, sub: 1, action: "session-reset", rfc: "RFC 7606 §5.3: session reset"},
	{kind: bgptest.UnknownWellKnown, out: outReset, code: 3, sub: 2, action: "session-reset", rfc: "RFC 4271 §6.3: NOTIFICATION 3/2 (RFC 7606 keeps it)"},
	{kind: bgptest.MissingNextHop, out: outWithdrawn, action: "treat-as-withdraw", rfc: "RFC 7606 §3d: treat-as-withdraw"},
	{kind: bgptest.MalformedASPath, out: outWithdrawn, action: "treat-as-withdraw", rfc: "RFC 7606 §7.2: treat-as-withdraw"},
	{kind: bgptest.BadMPReach, out: outReset, code: 3, sub: 5, action: "session-reset", v6: true, rfc: "RFC 7606 §7.11: session reset or AFI/SAFI disable"},
	// GO-2026-4736 (CVE-2026-30405): crashes GoBGP v4 before v4.4.0.
	{kind: bgptest.NextHopLen0, out: outWithdrawn, action: "treat-as-withdraw", rfc: "RFC 7606 §7.3: treat-as-withdraw"},
	{kind: bgptest.NextHopLen1, out: outIgnored, action: "treat-as-withdraw", deviation: true, rfc: "RFC 7606 §7.3: treat-as-withdraw"},
	{kind: bgptest.NextHopLen2, out: outWithdrawn, action: "treat-as-withdraw", rfc: "RFC 7606 §7.3: treat-as-withdraw"},
	{kind: bgptest.NextHopLen3, out: outWithdrawn, action: "treat-as-withdraw", rfc: "RFC 7606 §7.3: treat-as-withdraw"},
}

// TestMalformedUpdates: a raw speaker sends each kind of broken UPDATE while a
// well-behaved GoBGP speaker has routes in. The collector survives, the good
// session and its routes are untouched, the outcome is the one GoBGP v4.8.0
// is known to give (RFC 7606 where it complies), and routewarden reports it:
// a warning in its log and routewarden_bgp_update_errors_total or
// routewarden_bgp_notifications_total.
func TestMalformedUpdates(t *testing.T) {
	t.Parallel()
	r := runCollector(t, testConfig(freePort(t), false))
	good := startSpeaker(t, "127.0.1.81", 65010, r.port, 65000, false)
	good.announce("10.244.81.0/24", "10.0.0.81")
	good.announce("fd00:10:244:81::/64", "fd00::81")
	goodRoutes := func() string { return fmt.Sprint(r.peerRoutes("127.0.1.81")) }
	eventually(t, "the good speaker's routes", func() bool { return len(r.peerRoutes("127.0.1.81")) == 2 })
	before := goodRoutes()

	for i, tc := range malformedCases {
		t.Run(tc.kind.String(), func(t *testing.T) {
			local := fmt.Sprintf("127.0.1.%d", 100+i)
			conn := dialRaw(t, r.addr(), rawOpen(local, 65020, 0))
			a := rawAttrs("10.0.0.73")
			p := netip.MustParsePrefix(fmt.Sprintf("10.244.%d.0/24", 100+i))
			if tc.v6 {
				p = netip.MustParsePrefix(fmt.Sprintf("fd00:10:244:%d::/64", 100+i))
			}
			sentinel := netip.MustParsePrefix(fmt.Sprintf("10.99.%d.0/24", i))
			out := brokenOutcome(t, r, conn, local, a, p, sentinel, func(a bgptest.Attrs) []byte { return bgptest.Broken(tc.kind, p, a) })
			if out != tc.out {
				t.Fatalf("GoBGP's handling changed: %s, was %s (RFC: %s); update docs/reliability-bgp.md", out, tc.out, tc.rfc)
			}
			wantCounted(t, r, conn, local, out, tc.code, tc.sub, tc.action)
			if peer, _ := r.peer(local); len(peer.EndOfRIB) > 0 {
				t.Errorf("End-of-RIB recorded: %v, want none", peer.EndOfRIB)
			}
			if !r.alive() {
				t.Fatal("the collector stopped")
			}
			if !good.established() || goodRoutes() != before {
				t.Fatalf("the good session was touched: established %v, routes %s (were %s)", good.established(), goodRoutes(), before)
			}
			conn.Close()
		})
	}
}

// brokenOutcome announces p well-formed on conn (from local, with attributes
// a), then sends the broken message (built with next hop 10.0.0.99) and a
// well-formed sentinel, and says what became of p. Messages are processed in
// order: once the sentinel is in, so is the verdict.
func brokenOutcome(t *testing.T, r *running, conn *bgptest.Conn, local string, a bgptest.Attrs, p, sentinel netip.Prefix,
	broken func(bgptest.Attrs) []byte) string {
	t.Helper()
	announceRaw(t, conn, a, false, p)
	eventually(t, "the well-formed announcement", func() bool { return len(r.peerRoutes(local)) == 1 })
	a.NextHop = netip.MustParseAddr("10.0.0.99")
	if err := conn.WriteRaw(broken(a)); err != nil {
		t.Fatal(err)
	}
	msgs, _ := bgptest.PackUpdates([]netip.Prefix{sentinel}, a)
	_ = conn.Send(msgs...) // fails when the session is already reset
	var out string
	wait.True(t, "the session to end or the sentinel to arrive", 30*time.Second, func() bool {
		select {
		case <-conn.Done():
			out = outReset
			return true
		default:
		}
		routes := r.peerRoutes(local)
		if _, ok := routes[sentinel.String()]; !ok {
			return false
		}
		switch got, ok := routes[p.String()]; {
		case !ok:
			out = outWithdrawn
		case got.NextHop.String() == "10.0.0.99":
			out = outAccepted
		default:
			out = outIgnored
		}
		return true
	})
	return out
}

// wantCounted checks that an outcome was reported: a reset by the
// NOTIFICATION code/sub (received by the peer, counted as sent) and the
// peer's routes dropped; an RFC 7606 action in update_errors_total and a
// warning naming the peer.
func wantCounted(t *testing.T, r *running, conn *bgptest.Conn, local, out string, code, sub uint8, action string) {
	t.Helper()
	if out == outReset {
		n, ok := conn.Notification()
		if !ok || n.Code != code || n.Subcode != sub {
			t.Fatalf("NOTIFICATION %v (received %v), want %d/%d", n, ok, code, sub)
		}
		eventually(t, "the reset peer's routes to be dropped", func() bool { return len(r.peerRoutes(local)) == 0 })
		eventually(t, "the NOTIFICATION sent to be counted", func() bool {
			return counter(r.metrics.notifications, local, "sent", fmt.Sprint(code), fmt.Sprint(sub)) == 1
		})
	}
	if action != "" {
		eventually(t, "the "+action+" to be counted", func() bool {
			return counter(r.metrics.updateErrors, local, action) == 1
		})
		if !logHas(r.log, `"level":"warn"`, local) {
			t.Errorf("no warning names %s in the log:\n%s", local, r.log.String())
		}
	}
}
