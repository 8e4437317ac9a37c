package bgp

import (
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/bgp/rawbgp"
	"github.com/routewarden/routewarden/internal/wait"
)

// What happened to a prefix announced well-formed, then again in a broken UPDATE.
const (
	outReset     = "session reset" // NOTIFICATION sent, session down, the peer's routes dropped
	outWithdrawn = "withdrawn"     // treat-as-withdraw: the prefix is gone, the session stays up
	outIgnored   = "ignored"       // the broken UPDATE changed nothing: the old route stays
	outAccepted  = "accepted"      // the broken UPDATE was applied as if well-formed
)

// malformedCases is what GoBGP v3.37.0 does with each broken UPDATE, asserted
// below, beside what RFC 7606 (and RFC 4271 for the header) asks. Where they
// differ, docs/reliability-bgp.md says why it matters.
var malformedCases = []struct {
	kind       rawbgp.Kind
	out        string
	code, sub  uint8  // the NOTIFICATION, for outReset
	action     string // routewarden_bgp_update_errors_total{action}, "" for none
	rfc        string
	deviation  bool
	v6         bool
	endOfRIBv4 bool // GoBGP turns the broken UPDATE into an empty one: an End-of-RIB
}{
	{kind: rawbgp.ShortMessageLength, out: outReset, code: 1, sub: 2, action: "session-reset", rfc: "RFC 4271 §6.1: NOTIFICATION 1/2"},
	{kind: rawbgp.OversizedMessage, out: outAccepted, rfc: "RFC 4271 §6.1: NOTIFICATION 1/2", deviation: true},
	{kind: rawbgp.TotalAttrLengthOverrun, out: outReset, code: 3, sub: 1, action: "session-reset", rfc: "RFC 7606 §4: session reset"},
	{kind: rawbgp.AttrLengthOverrun, out: outIgnored, action: "treat-as-withdraw", rfc: "RFC 7606 §4: treat-as-withdraw", deviation: true, endOfRIBv4: true},
	{kind: rawbgp.BadAttrFlags, out: outWithdrawn, action: "treat-as-withdraw", rfc: "RFC 7606 §3c: treat-as-withdraw"},
	{kind: rawbgp.InvalidOrigin, out: outWithdrawn, action: "treat-as-withdraw", rfc: "RFC 7606 §7.1: treat-as-withdraw"},
	{kind: rawbgp.TruncatedNLRI, out: outReset, code: 3, sub: 1, action: "session-reset", rfc: "RFC 7606 §5.3: session reset"},
	{kind: rawbgp.UnknownWellKnown, out: outReset, code: 3, sub: 2, action: "session-reset", rfc: "RFC 4271 §6.3: NOTIFICATION 3/2 (RFC 7606 keeps it)"},
	{kind: rawbgp.MissingNextHop, out: outWithdrawn, action: "treat-as-withdraw", rfc: "RFC 7606 §3d: treat-as-withdraw"},
	{kind: rawbgp.MalformedASPath, out: outWithdrawn, action: "treat-as-withdraw", rfc: "RFC 7606 §7.2: treat-as-withdraw"},
	{kind: rawbgp.BadMPReach, out: outWithdrawn, action: "afi-safi-disable", v6: true, rfc: "RFC 7606 §7.11: session reset or AFI/SAFI disable (RFC 4760 §7: drop the family's routes; GoBGP keeps them, routewarden drops them)"},
	// GO-2026-4736 (CVE-2026-30405): crashes GoBGP v4 before v4.4.0; v3.37.0 survives it.
	{kind: rawbgp.NextHopLen0, out: outWithdrawn, action: "treat-as-withdraw", rfc: "RFC 7606 §7.3: treat-as-withdraw"},
	{kind: rawbgp.NextHopLen1, out: outIgnored, action: "treat-as-withdraw", deviation: true, endOfRIBv4: true, rfc: "RFC 7606 §7.3: treat-as-withdraw"},
	{kind: rawbgp.NextHopLen2, out: outWithdrawn, action: "treat-as-withdraw", rfc: "RFC 7606 §7.3: treat-as-withdraw"},
	{kind: rawbgp.NextHopLen3, out: outWithdrawn, action: "treat-as-withdraw", rfc: "RFC 7606 §7.3: treat-as-withdraw"},
}

// TestMalformedUpdates: a raw speaker sends each kind of broken UPDATE while a
// well-behaved GoBGP speaker has routes in. The collector survives, the good
// session and its routes are untouched, the outcome is the one GoBGP v3.37.0
// is known to give (RFC 7606 where it complies), and routewarden reports it:
// a warning in its log and routewarden_bgp_update_errors_total or
// routewarden_bgp_notifications_total.
func TestMalformedUpdates(t *testing.T) {
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
			announceRaw(t, conn, a, false, p)
			eventually(t, "the well-formed announcement", func() bool { return len(r.peerRoutes(local)) == 1 })

			a.NextHop = netip.MustParseAddr("10.0.0.99")
			sentinel := netip.MustParsePrefix(fmt.Sprintf("10.99.%d.0/24", i))
			if err := conn.WriteRaw(rawbgp.Broken(tc.kind, p, a)); err != nil {
				t.Fatal(err)
			}
			msgs, _ := rawbgp.PackUpdates([]netip.Prefix{sentinel}, a)
			_ = conn.Send(msgs...) // fails when the session is already reset
			// Messages are processed in order: once the sentinel is in, so is the verdict.
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
			if out != tc.out {
				t.Fatalf("GoBGP's handling changed: %s, was %s (RFC: %s); update docs/reliability-bgp.md", out, tc.out, tc.rfc)
			}
			if out == outReset {
				n, ok := conn.Notification()
				if !ok || n.Code != tc.code || n.Subcode != tc.sub {
					t.Fatalf("NOTIFICATION %v (received %v), want %d/%d", n, ok, tc.code, tc.sub)
				}
				eventually(t, "the reset peer's routes to be dropped", func() bool { return len(r.peerRoutes(local)) == 0 })
				eventually(t, "the NOTIFICATION sent to be counted", func() bool {
					return counter(r.metrics.notifications, local, "sent", fmt.Sprint(tc.code), fmt.Sprint(tc.sub)) == 1
				})
			}
			if tc.action != "" {
				eventually(t, "the "+tc.action+" to be counted", func() bool {
					return counter(r.metrics.updateErrors, local, tc.action) == 1
				})
				if !logHas(r.log, `"level":"warn"`, local) {
					t.Errorf("no warning names %s in the log:\n%s", local, r.log.String())
				}
			}
			if tc.endOfRIBv4 {
				// Applied once the route feed has caught up with it (feed.go).
				eventually(t, "the End-of-RIB GoBGP read", func() bool {
					peer, _ := r.peer(local)
					return len(peer.EndOfRIB) > 0
				})
			} else if peer, _ := r.peer(local); len(peer.EndOfRIB) > 0 {
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

// TestUnknownMessageTypeCrashesGoBGP pins a known GoBGP v3.37.0 bug
// (osrg/gobgp#3325, fixed upstream by #3327 in v4): a message of unknown type
// from any peer that got past the TCP accept makes GoBGP dereference nil in
// fsmHandler.handlingError, in a goroutine: the whole process dies. It runs the
// attack in a child test process and checks that the child crashed that way;
// when GoBGP is upgraded this test fails, and the promise in
// docs/reliability-bgp.md can be widened.
func TestUnknownMessageTypeCrashesGoBGP(t *testing.T) {
	if os.Getenv("ROUTEWARDEN_CRASH_CHILD") == "1" {
		r := runCollector(t, testConfig(freePort(t), false))
		conn := dialRaw(t, r.addr(), rawOpen("127.0.1.99", 65020, 0))
		_ = conn.WriteRaw(rawbgp.Message(9, []byte{1, 2, 3}))
		<-conn.Done()
		time.Sleep(2 * time.Second)
		return // reached only if GoBGP survived
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUnknownMessageTypeCrashesGoBGP$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ROUTEWARDEN_CRASH_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "nil pointer dereference") ||
		!strings.Contains(string(out), "handlingError") {
		t.Fatalf("GoBGP no longer crashes on an unknown message type (err %v): widen the promise in "+
			"docs/reliability-bgp.md and drop this test. Output:\n%s", err, out)
	}
}
