package bgp

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/bgptest"
	"github.com/routewarden/routewarden/bgp/gobgplog"
)

// BenchmarkRouteFeed compares the route feed (GoBGP's BMP client to a
// loopback listener, UPDATEs decoded by bgp/wire, into the RIB) with GoBGP
// v4's native watch (WatchUpdate: a callback with apiutil.Path values, here
// only read for prefix, next hop and AS path, not stored): the time from the
// first UPDATE a raw neighbor sends to the last path delivered (and the
// process's CPU time in it), for
// ROUTEWARDEN_FEED_N IPv4 prefixes (default 200k). ARCHITECTURE.md, "the
// route feed", has the figures.
func BenchmarkRouteFeed(b *testing.B) {
	n := 200_000
	if s := os.Getenv("ROUTEWARDEN_FEED_N"); s != "" {
		_, _ = fmt.Sscan(s, &n)
	}
	prefixes := make([]netip.Prefix, n)
	for i := range prefixes {
		prefixes[i] = netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32)
	}
	a := rawAttrs("10.0.0.1")
	a.AddPath, a.PathID = false, 0
	msgs, err := bgptest.PackUpdates(prefixes, a)
	if err != nil {
		b.Fatal(err)
	}
	for _, feed := range []string{"bmp", "watch"} {
		b.Run(feed, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				port := freePort(b)
				held, stop := startFeedUnderTest(b, feed, port)
				conn := dialRaw(b, fmt.Sprintf("127.0.0.1:%d", port), crashOpen(netip.MustParseAddr("127.0.1.9")))
				b.StartTimer()
				start, cpu := time.Now(), cpuTime()
				if err := conn.Send(msgs...); err != nil {
					b.Fatal(err)
				}
				for held() < n {
					if time.Since(start) > 5*time.Minute {
						b.Fatalf("%d of %d paths after 5 minutes", held(), n)
					}
					time.Sleep(time.Millisecond)
				}
				b.ReportMetric(time.Since(start).Seconds(), "s/table")
				b.ReportMetric((cpuTime() - cpu).Seconds(), "cpu-s/table")
				b.StopTimer()
				conn.Close()
				stop()
			}
		})
	}
}

// startFeedUnderTest starts a collector ("bmp") or a GoBGP server set up as
// the collector's, watched natively ("watch"); held counts the paths delivered.
func startFeedUnderTest(b *testing.B, feed string, port int32) (held func() int, stop func()) {
	cfg := testConfig(port, false)
	c, err := NewCollector(cfg, zerolog.Nop(), prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if feed == "bmp" {
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx) }()
		return func() int {
				n := 0
				for _, p := range c.Store().Peers() {
					n += p.Routes
				}
				return n
			}, func() {
				cancel()
				_ = <-done // ends with the context's error
			}
	}
	srv := server.NewBgpServer(gobgplog.Option(zerolog.Nop(), nil))
	go srv.Serve()
	c.srv = srv
	err = srv.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{Asn: cfg.ASN, RouterId: cfg.RouterID.String(),
		ListenPort: cfg.ListenPort, ListenAddresses: cfg.ListenAddresses, Families: globalRIBFamilies}})
	if err == nil {
		err = neverAdvertise(ctx, srv)
	}
	var count atomic.Int64
	if err == nil {
		err = srv.WatchEvent(ctx, server.WatchEventMessageCallbacks{OnPathUpdate: func(ps []*apiutil.Path, _ time.Time) {
			for _, p := range ps {
				var nh netip.Addr
				var asPath []uint32
				for _, a := range p.Attrs {
					switch a := a.(type) {
					case *gobgp.PathAttributeNextHop:
						nh = a.Value
					case *gobgp.PathAttributeAsPath:
						for _, s := range a.Value {
							asPath = append(asPath, s.GetAS()...)
						}
					}
				}
				_ = asPath // decoded as the feed decodes it, not judged here
				if pf, err := netip.ParsePrefix(p.Nlri.String()); err == nil && nh.IsValid() && pf.IsValid() {
					count.Add(1)
				}
			}
		}}, server.WatchUpdate(false, "", ""))
	}
	if err == nil {
		err = c.addRange(ctx, cfg.Dynamic[0])
	}
	if err != nil {
		b.Fatal(err)
	}
	return func() int { return int(count.Load()) }, func() {
		cancel()
		srv.Stop()
	}
}

// cpuTime is the CPU time the process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
