package bgp

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/routewarden/routewarden/bgp/bgptest"
	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/validator"
)

// flapPeer is one raw speaker that flaps: node i at 127.0.1.(140+i), next hop
// 10.0.0.(140+i), pod CIDR 10.244.(140+i).0/24. In session k it announces its
// CIDR plus flapExtra host routes that change with k, so a path left behind
// by an earlier session would show as a finding at the end.
type flapPeer struct {
	node testNode
	gr   bool
}

const flapExtra = 20

func (p flapPeer) local() string { return "127.0.1." + strconv.Itoa(int(p.node.addr.As4()[3])) }

func (p flapPeer) prefixes(session int, last bool) []netip.Prefix {
	out := []netip.Prefix{p.node.cidr}
	if last {
		return out
	}
	for j := range flapExtra {
		out = append(out, netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 250, p.node.addr.As4()[3], byte(session*flapExtra + j)}), 32))
	}
	return out
}

// flapCount is how many session flaps TestPeerFlaps makes in all, 1000 unless
// ROUTEWARDEN_FLAPS says otherwise.
func flapCount(t *testing.T) int {
	if s := os.Getenv("ROUTEWARDEN_FLAPS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("ROUTEWARDEN_FLAPS=%q: %v", s, err)
		}
		return n
	}
	return 1000
}

// flap runs one session of p: up, announce, wait for the routes, then (unless
// last) down without a NOTIFICATION, and wait until its routes left the store
// (or, under graceful restart, are all stale). It runs on its own goroutine,
// so it returns errors instead of failing the test.
func flap(r *running, p flapPeer, session int, last bool) (*bgptest.Conn, error) {
	restart := uint16(0)
	if p.gr {
		restart = 120
	}
	conn, err := dialRetry(r.addr(), rawOpen(p.local(), 65010, restart))
	if err != nil {
		return nil, err
	}
	want := p.prefixes(session, last)
	msgs, err := bgptest.PackUpdates(want, rawAttrs(p.node.addr.String()))
	if err == nil {
		err = conn.Send(append(msgs, bgptest.EndOfRIB(false), bgptest.EndOfRIB(true))...)
	}
	if err == nil {
		err = poll(func() error {
			got := r.peerRoutes(p.local())
			for _, pf := range want {
				if rt, ok := got[pf.String()]; !ok || rt.Stale {
					return fmt.Errorf("%s missing or stale: %d routes", pf, len(got))
				}
			}
			if len(got) != len(want) { // End-of-RIB drops what the previous session left stale
				return fmt.Errorf("%d routes, want %d", len(got), len(want))
			}
			return nil
		})
	}
	if err != nil || last {
		return conn, wrapFlap(err, p, session, "up")
	}
	conn.Close()
	return nil, wrapFlap(poll(func() error {
		got := r.peerRoutes(p.local())
		for _, rt := range got {
			if !p.gr || !rt.Stale {
				return fmt.Errorf("%d routes, %s not stale", len(got), rt.Prefix)
			}
		}
		if p.gr && len(got) != len(want) {
			return fmt.Errorf("%d stale routes, want %d", len(got), len(want))
		}
		return nil
	}), p, session, "down")
}

func wrapFlap(err error, p flapPeer, session int, phase string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s, session %d, %s: %w", p.local(), session, phase, err)
}

// poll waits up to 30s for cond to hold.
func poll(cond func() error) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := cond()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPeerFlaps: peers flap their sessions concurrently, 1000 flaps in all
// (ROUTEWARDEN_FLAPS changes the count): four raw speakers that drop TCP
// without a NOTIFICATION, two more with graceful restart, and a real GoBGP
// speaker that ends each session with a Cease. After every down the peer's
// routes have left the store (with graceful restart: are all stale); at the
// end the heap is back near its level after the first flaps, no goroutine
// outlives the collector, and the validator finds nothing left behind once
// every peer is back with only its own CIDR.
func TestPeerFlaps(t *testing.T) {
	if testing.Short() {
		t.Skip("1000 session flaps")
	}
	// Not parallel: another test's goroutines would count as leaks, and its
	// allocations would show in the heap.
	ignore := goleak.IgnoreCurrent()
	// GoBGP's queues left behind before this test (by a test before it, or
	// by this one in an earlier -count round) are not its sessions'.
	queuesBefore := outgoingQueues()
	cfg := testConfig(freePort(t), true)
	cfg.GraceWindow = 2 * time.Second
	r := runCollector(t, cfg)
	var peers []flapPeer
	for i := range 6 {
		a := netip.AddrFrom4([4]byte{10, 0, 0, byte(140 + i)})
		peers = append(peers, flapPeer{gr: i < 2, node: testNode{name: "node" + strconv.Itoa(140+i), addr: a,
			cidr: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 244, byte(140 + i), 0}), 24)}})
	}
	speakerNode := testNode{name: "node139", addr: netip.MustParseAddr("10.0.0.139"),
		cidr: netip.MustParsePrefix("10.244.139.0/24")}

	// A graceful-restart peer cannot come back sooner than 5s (GoBGP keeps a
	// restarting peer idle that long) and the GoBGP speaker reconnects once a
	// second, so the four plain raw peers make the count while the others flap
	// as often as they can meanwhile (at least twice).
	total := flapCount(t)
	per := total / 4
	var plain, gr, gobgpFlaps atomic.Int64
	var bulkDone atomic.Bool
	var baseline uint64
	var baseOnce sync.Once
	start := time.Now()
	var wg, bulk sync.WaitGroup
	errs := make(chan error, len(peers)+1)
	run := func(n *atomic.Int64, more func(k int) bool, one func(k int) error) {
		defer wg.Done()
		for k := 0; more(k); k++ {
			if err := one(k); err != nil {
				errs <- err
				return
			}
			if n.Add(1) == int64(min(100, per/2)) && n == &plain {
				baseOnce.Do(func() { baseline = heapInuse() })
			}
		}
	}
	meanwhile := func(k int) bool { return k < 2 || !bulkDone.Load() }
	for _, p := range peers {
		wg.Add(1)
		if p.gr {
			go run(&gr, meanwhile, func(k int) error { _, err := flap(r, p, k%10, false); return err })
			continue
		}
		bulk.Add(1)
		go func() {
			defer bulk.Done()
			run(&plain, func(k int) bool { return k < per }, func(k int) error { _, err := flap(r, p, k%10, false); return err })
		}()
	}
	wg.Add(1)
	go run(&gobgpFlaps, meanwhile, func(k int) error { _, err := speakerFlap(r, speakerNode, k%10, false); return err })
	bulk.Wait()
	elapsed := time.Since(start)
	bulkDone.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	// Every peer's last session, all at once: a graceful-restart peer waits
	// up to 5s to be taken back, and the GoBGP speaker 1.5-2s to connect.
	conns := make([]*bgptest.Conn, len(peers))
	var last *speaker.Speaker
	lastErrs := make([]error, len(peers)+1)
	var ups sync.WaitGroup
	for i, p := range peers {
		ups.Go(func() { conns[i], lastErrs[i] = flap(r, p, 0, true) })
	}
	ups.Go(func() { last, lastErrs[len(peers)] = speakerFlap(r, speakerNode, 0, true) })
	ups.Wait()
	if last != nil {
		t.Cleanup(last.Stop)
	}
	for i, err := range lastErrs {
		if err != nil {
			if i < len(peers) && conns[i] != nil {
				conns[i].Close()
			}
			t.Fatal(err)
		}
	}
	final := heapInuse()
	t.Logf("%d flaps: %d of 4 plain raw peers in %s, %d of 2 graceful-restart peers, %d of a GoBGP speaker; "+
		"heap in use %s after the first flaps, %s at the end", plain.Load()+gr.Load()+gobgpFlaps.Load(), plain.Load(),
		elapsed.Round(time.Millisecond), gr.Load(), gobgpFlaps.Load(), mib(baseline), mib(final))
	writeHeapProfile(t, "flaps-heap.pprof")

	routes, _ := r.Store().Routes()
	nodes := []testNode{speakerNode}
	for _, p := range peers {
		nodes = append(nodes, p.node)
	}
	res := validator.Validate(ptr(clusterOf(nodes...)), routes, validator.PolicyView{}, validator.Options{Now: time.Now()})
	if len(res.Findings) != 0 || len(routes) != len(nodes) {
		t.Errorf("left behind: %d routes, findings %+v", len(routes), res.Findings)
	}

	for _, c := range conns {
		c.Close()
	}
	last.Stop()
	r.stop()
	// Everything the collector and the speakers started must be gone, but
	// GoBGP's BgpServer.Serve, which has no way to end: one per server; and
	// GoBGP v4's leak: a session's outgoing queue (an eapache InfiniteChannel)
	// keeps its goroutine, and what was queued, when the session ended with
	// messages still in it. v4 drains it without waiting (cleanInfiniteChannel,
	// since a30d59b8; v3 waited). At most one a flap (RELIABILITY.md).
	flaps := plain.Load() + gr.Load() + gobgpFlaps.Load()
	queues := outgoingQueues() - queuesBefore
	// Each flap ends a session, on both sides of the GoBGP speaker's, and so
	// does the stop (every peer's last session, the speaker's on both sides).
	sessions := int(flaps+gobgpFlaps.Load()) + len(peers) + 2
	t.Logf("GoBGP v4 left %d outgoing queues of %d sessions behind", queues, sessions)
	if queues > sessions {
		t.Errorf("%d outgoing queues left behind, more than one a session (%d)", queues, sessions)
	}
	// A leak of 4 KiB a flap would pass 4 MiB; GoBGP's queues, and what is
	// left in them, get 8 KiB each on top (they held ~4 KiB each here).
	if limit := baseline + 4<<20 + uint64(queues)*8<<10; final > limit {
		t.Errorf("heap in use grew from %s to %s (limit %s, %d leaked queues of GoBGP's)", mib(baseline), mib(final),
			mib(limit), queues)
	}
	goleak.VerifyNone(t, ignore, goleak.IgnoreAnyFunction("github.com/osrg/gobgp/v4/pkg/server.(*BgpServer).Serve"),
		goleak.IgnoreAnyFunction("github.com/eapache/channels.(*InfiniteChannel).infiniteBuffer"))
}

// speakerFlap is flap for a real GoBGP speaker, started for every session and
// stopped (with a Cease) unless last; the last one is returned, running.
func speakerFlap(r *running, n testNode, session int, last bool) (*speaker.Speaker, error) {
	local := "127.0.1." + strconv.Itoa(int(n.addr.As4()[3]))
	s, err := speaker.Start(context.Background(), speaker.Config{Local: netip.MustParseAddr(local), ASN: 65010,
		CollectorAddr: netip.MustParseAddr("127.0.0.1"), CollectorPort: r.port, CollectorASN: 65000}, zerolog.Nop())
	if err != nil {
		return nil, err
	}
	p := flapPeer{node: n}
	want := p.prefixes(session, last)
	for _, pf := range want {
		if err := s.Announce(context.Background(), pf, n.addr); err != nil {
			s.Stop()
			return nil, err
		}
	}
	routes := func(n int) func() error {
		return func() error {
			if got := len(r.peerRoutes(local)); got != n {
				return fmt.Errorf("%d routes, want %d", got, n)
			}
			return nil
		}
	}
	if err := poll(routes(len(want))); err != nil || last {
		return s, wrapFlap(err, p, session, "up")
	}
	s.Stop()
	return nil, wrapFlap(poll(routes(0)), p, session, "down")
}

func ptr[T any](v T) *T { return &v }

// outgoingQueues counts the goroutines of GoBGP's outgoing queues (eapache
// InfiniteChannel) alive now.
func outgoingQueues() int {
	n := 0
	for _, g := range goroutines() {
		if strings.Contains(g, "eapache/channels.(*InfiniteChannel).infiniteBuffer") {
			n++
		}
	}
	return n
}

// goroutines returns the stack of every goroutine.
func goroutines() []string {
	buf := make([]byte, 64<<20)
	return strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n")
}
