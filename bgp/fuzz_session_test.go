package bgp

import (
	"context"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/routewarden/routewarden/bgp/bgptest"
)

// FuzzSession drives random bytes into a live collector from a neighbor of a
// dynamic range: in place of the OPEN (open false) or in an established
// session. Whatever GoBGP makes of them, the collector must live: a panic in
// one of GoBGP's goroutines ends the fuzzing process, and the input is kept.
// hack/fuzz.sh runs it briefly in CI; the crash cases seed it.
func FuzzSession(f *testing.F) {
	for i, tc := range crashCases {
		f.Add(false, tc.msg(byte(i)))
		f.Add(true, tc.msg(byte(i)))
	}
	f.Add(true, crashUpdate(nil, cat(crashOrigin, crashASPath, crashNextHop), 1))
	cfg := testConfig(freePort(f), false)
	cfg.Dynamic = append(cfg.Dynamic, DynamicRange{Prefix: netip.MustParsePrefix("127.0.3.0/24")})
	r := runCollector(f, cfg)
	var next atomic.Uint32
	f.Fuzz(func(t *testing.T, open bool, msg []byte) {
		// A fresh neighbor address each time: GoBGP holds an address whose
		// session was reset a while before it takes it again.
		local := netip.AddrFrom4([4]byte{127, 0, 3, byte(1 + next.Add(1)%254)})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if !open {
			// A message cut short leaves GoBGP waiting for the rest: no more.
			short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
			defer cancel()
			_, _, _, _ = bgptest.Probe(short, r.addr(), local, msg)
		} else if conn, err := bgptest.Dial(ctx, r.addr(), crashOpen(local)); err == nil {
			_ = conn.WriteRaw(msg)
			_ = conn.Send(bgptest.Keepalive()) // answered unless the session ended
			select {
			case <-conn.Done():
			case <-time.After(20 * time.Millisecond):
			}
			conn.Close()
		}
		if !r.alive() {
			t.Fatal("the collector stopped")
		}
	})
}
