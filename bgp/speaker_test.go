package bgp

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/wait"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// testSpeaker wraps a speaker.Speaker with test failures.
type testSpeaker struct {
	t testing.TB
	*speaker.Speaker
}

func startSpeaker(t testing.TB, local string, asn uint32, collectorPort int32, collectorASN uint32, gr bool) *testSpeaker {
	t.Helper()
	cfg := speaker.Config{Local: netip.MustParseAddr(local), ASN: asn, CollectorAddr: netip.MustParseAddr("127.0.0.1"),
		CollectorPort: collectorPort, CollectorASN: collectorASN}
	if gr {
		cfg.RestartTime = 5
	}
	s, err := speaker.Start(context.Background(), cfg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return &testSpeaker{t: t, Speaker: s}
}

func (s *testSpeaker) announce(prefix, nextHop string) {
	s.t.Helper()
	if err := s.Announce(context.Background(), netip.MustParsePrefix(prefix), netip.MustParseAddr(nextHop)); err != nil {
		s.t.Fatal(err)
	}
}

func (s *testSpeaker) withdraw(prefix, nextHop string) {
	s.t.Helper()
	if err := s.Withdraw(context.Background(), netip.MustParsePrefix(prefix), netip.MustParseAddr(nextHop)); err != nil {
		s.t.Fatal(err)
	}
}

func (s *testSpeaker) received() int     { return s.Received(context.Background()) }
func (s *testSpeaker) established() bool { return s.Established(context.Background()) }
func (s *testSpeaker) stop()             { s.Stop() }

// startCollector runs a collector on a free port until the test ends;
// allowExport takes both of its guards against advertising away.
func startCollector(t testing.TB, cfg Config, allowExport bool) *Collector {
	t.Helper()
	return startCollectorGuarded(t, cfg, allowExport, allowExport)
}

// startCollectorGuarded runs a collector without the never-advertise policy
// (noPolicy) or with every family in GoBGP's global RIB (fullRIB).
func startCollectorGuarded(t testing.TB, cfg Config, noPolicy, fullRIB bool) *Collector {
	t.Helper()
	c, err := NewCollector(cfg, zerolog.Nop(), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	c.noExportPolicy, c.fullGlobalRIB = noPolicy, fullRIB
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("collector: %v", err)
		}
	})
	return c
}

func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	wait.True(t, what, 30*time.Second, cond)
}

func freePort(t testing.TB) int32 { return loopback.FreePort(t) }
