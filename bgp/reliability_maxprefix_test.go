package bgp

import (
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/routewarden/routewarden/bgp/bgptest"
	"github.com/routewarden/routewarden/internal/wait"
)

// TestMaxPrefixCutOff: a peer whose range allows 100 prefixes announces 100,
// then 9,900 more; it reconnects at once and does it again, 50 times. Every
// time its session is cut with a NOTIFICATION Cease/Maximum Number of Prefixes
// Reached (6/1), its routes leave the store, and routewarden counts it
// (routewarden_bgp_prefix_limit_exceeded_total, _notifications_total) and logs
// it. The store never holds more of its routes than the limit, the heap does
// not grow with the cycles, and a good speaker in the same range is untouched.
func TestMaxPrefixCutOff(t *testing.T) {
	// Not parallel: another test's allocations would show in its heap.
	const limit, sent, cycles = 100, 10000, 50
	cfg := testConfig(freePort(t), false)
	cfg.Dynamic[0].MaxPrefixes = limit
	r := runCollector(t, cfg)
	good := startSpeaker(t, "127.0.1.171", 65010, r.port, 65000, false)
	good.announce("10.244.171.0/24", "10.0.0.171")
	eventually(t, "the good speaker's route", func() bool { return len(r.peerRoutes("127.0.1.171")) == 1 })

	const bad = "127.0.1.172"
	var prefixes []netip.Prefix
	for i := range sent {
		prefixes = append(prefixes, netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 100 + byte(i>>16), byte(i >> 8), byte(i)}), 32))
	}
	// The most routes of the bad peer the store ever held, sampled.
	var most atomic.Int64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			if n := int64(len(r.peerRoutes(bad))); n > most.Load() {
				most.Store(n)
			}
		}
	}()

	within, err := bgptest.PackUpdates(prefixes[:limit], rawAttrs("10.0.0.172"))
	if err != nil {
		t.Fatal(err)
	}
	past, err := bgptest.PackUpdates(prefixes[limit:], rawAttrs("10.0.0.172"))
	if err != nil {
		t.Fatal(err)
	}
	var baseline uint64
	start := time.Now()
	for c := range cycles {
		if c == 5 {
			baseline = heapInuse()
		}
		conn := dialRaw(t, r.addr(), rawOpen(bad, 65020, 0))
		if err := conn.Send(append(within, bgptest.EndOfRIB(false))...); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the routes within the limit", func() bool { return len(r.peerRoutes(bad)) == limit })
		if most.Load() < limit {
			most.Store(limit)
		}
		// The send may fail part-way: the collector cuts the session meanwhile.
		_ = conn.Send(past...)
		wait.True(t, "the session to be cut", 30*time.Second, func() bool {
			select {
			case <-conn.Done():
				return true
			default:
				return false
			}
		})
		if n, ok := conn.Notification(); !ok || n.Code != 6 || n.Subcode != 1 {
			t.Fatalf("cycle %d: NOTIFICATION %v (received %v), want 6/1", c, n, ok)
		}
		eventually(t, "the cut peer's routes to leave", func() bool {
			p, _ := r.peer(bad)
			return len(r.peerRoutes(bad)) == 0 && p.State != "established"
		})
		conn.Close()
		// Each cut-off is counted once, at the cut-off (a second count for
		// the same session would show here, at the next cycle at the latest).
		wantCutOffs(t, r, bad, c+1)
	}
	elapsed := time.Since(start)
	close(stop)
	sampler.Wait()
	final := heapInuse()
	t.Logf("%d cut-offs of %d prefixes in %s; at most %d of the peer's routes in the store; heap in use %s after 5, %s after %d",
		cycles, sent, elapsed.Round(time.Millisecond), most.Load(), mib(baseline), mib(final), cycles)
	writeHeapProfile(t, "maxprefix-heap.pprof")
	if final > baseline+4<<20 {
		t.Errorf("heap in use grew from %s to %s", mib(baseline), mib(final))
	}
	if m := most.Load(); m > limit { // GoBGP checks the limit before it passes an UPDATE on
		t.Errorf("the store held %d routes of a peer limited to %d", m, limit)
	}
	wantCutOffs(t, r, bad, cycles)
	// GoBGP logs "prefix limit reached" once for every UPDATE it reads past
	// the limit before the session is down, several times a cut-off: the
	// counter counts the Ceases sent, not these lines.
	reached := 0
	for _, line := range strings.Split(r.log.String(), "\n") {
		if strings.Contains(line, "prefix limit reached") && strings.Contains(line, bad) {
			reached++
		}
	}
	t.Logf("GoBGP logged \"prefix limit reached\" %d times for %d cut-offs", reached, cycles)
	if reached < cycles {
		t.Errorf("%d log lines say the prefix limit of %s was reached, want one a cut-off at least:\n%s",
			reached, bad, r.log.String())
	}
	if !good.established() || len(r.peerRoutes("127.0.1.171")) != 1 {
		t.Fatalf("the good speaker was touched: established %v, routes %v", good.established(), r.peerRoutes("127.0.1.171"))
	}
}

// wantCutOffs waits until the prefix-limit counter and the sent 6/1
// NOTIFICATION counter of peer read n, and fails at once if either passed it.
func wantCutOffs(t *testing.T, r *running, peer string, n int) {
	t.Helper()
	wait.For(t, "the cut-offs to be counted", 30*time.Second, func() error {
		limit, cease := counter(r.metrics.prefixLimit, peer), counter(r.metrics.notifications, peer, "sent", "6", "1")
		if limit > float64(n) || cease > float64(n) {
			t.Fatalf("after %d cut-offs: prefix_limit_exceeded_total %v, 6/1 NOTIFICATIONs sent %v", n, limit, cease)
		}
		if limit != float64(n) || cease != float64(n) {
			return fmt.Errorf("prefix_limit_exceeded_total %v, 6/1 NOTIFICATIONs sent %v, want %d", limit, cease, n)
		}
		return nil
	})
}
