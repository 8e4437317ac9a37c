package cli

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/testfrr"
	"github.com/routewarden/routewarden/internal/wait"
	"github.com/routewarden/routewarden/validator"
)

// The conformance matrix's run feeds (TestConformanceRun).

// conformanceFeeds run a variant through routewarden run's pipeline, one
// per way paths reach it (runFeeds); each returns the findings once every
// route has arrived.
var conformanceFeeds = map[string]func(t *testing.T, s *confSpec, v confVariant) []string{
	config.RoleNode: feedSessions,
	config.RoleToR:  feedRelayed,
	"bmp":           feedBMP,
}

// runCluster is the scenario's cluster, read as check reads it.
func runCluster(t *testing.T, s *confSpec) validator.Cluster {
	t.Helper()
	dir := filepath.Join(conformanceDir, s.Cluster)
	_, _, c, err := readCluster("", []string{filepath.Join(dir, "cluster.json"), filepath.Join(dir, "cilium-config.yaml")}, "")
	if err != nil {
		t.Fatal(err)
	}
	return *c
}

// feedSessions: every speaker of the variant peers with routewarden
// itself, as Cilium nodes do (role node; the network's routers too).
func feedSessions(t *testing.T, s *confSpec, v confVariant) []string {
	spec := s.expand(t, v)
	cfg := bmpPipelineConfig(t, "127.0.1.0/24")
	cfg.BGP.DynamicNeighbors = append(cfg.BGP.DynamicNeighbors, config.DynamicNeighborConfig{Prefix: "127.0.3.0/24"})
	p, ctx := startPipeline(t, cfg, runCluster(t, s))
	return pipelineFindings(t, p, announceAll(t, ctx, spec.Speakers, collector, int32(cfg.BGP.ListenPort)))
}

// feedRelayed: one ToR (role tor, AS 65001) relays every speaker's routes
// with their next hops and origin AS, and announces its own.
func feedRelayed(t *testing.T, s *confSpec, v confVariant) []string {
	spec := s.expand(t, v)
	cfg := bmpPipelineConfig(t, "127.0.1.0/24")
	cfg.BGP.DynamicNeighbors = []config.DynamicNeighborConfig{{Prefix: "127.0.4.0/24",
		PeerSettings: config.PeerSettings{Role: config.RoleToR}}}
	p, ctx := startPipeline(t, cfg, runCluster(t, s))
	tor := startSpeaker(t, ctx, "127.0.4.1", 65001, collector, int32(cfg.BGP.ListenPort))
	// The ToR sends one path a prefix (no ADD-PATH): of the VIP's two, the last.
	prefixes := map[netip.Prefix]bool{}
	for _, sp := range spec.Speakers {
		for _, r := range sp.Routes {
			if err := tor.AnnounceWith(ctx, netip.MustParsePrefix(r.Prefix), netip.MustParseAddr(r.NextHop),
				speaker.Attrs{Communities: r.Communities, ASPath: []uint32{sp.ASN}}); err != nil {
				t.Fatal(err)
			}
			prefixes[netip.MustParsePrefix(r.Prefix)] = true
		}
	}
	n := len(prefixes)
	for _, own := range spec.Collector.Networks {
		p := netip.MustParsePrefix(own)
		nh := netip.MustParseAddr("10.0.0.1") // the ToR's address in the rack
		if p.Addr().Is6() {
			nh = netip.MustParseAddr("fd00::1")
		}
		if err := tor.Announce(ctx, p, nh); err != nil {
			t.Fatal(err)
		}
		n++
	}
	return pipelineFindings(t, p, n)
}

// collector is routewarden's address in the run feeds.
var collector = netip.MustParseAddr("127.0.0.1")

// feedBMP: every speaker peers with a real FRR ToR, which monitors them
// over BMP (pre- and post-policy) to routewarden's station. (Its own
// routes are in no peer's Adj-RIB-In, so BMP carries none of them.)
func feedBMP(t *testing.T, s *confSpec, v confVariant) []string {
	spec := s.expand(t, v)
	cfg := bmpPipelineConfig(t, "127.0.5.0/24") // no session: everything comes over BMP
	p, ctx := startPipeline(t, cfg, runCluster(t, s))
	_, bmpPort, _ := net.SplitHostPort(cfg.BGP.BMP.Listen)
	station, _ := strconv.ParseUint(bmpPort, 10, 32)
	tor, port := netip.MustParseAddr("127.0.2.1"), loopback.FreePort(t)
	var peers []netip.Addr
	for _, sp := range spec.Speakers {
		peers = append(peers, netip.MustParseAddr(sp.LocalAddress))
	}
	conf := testfrr.BMPConfig(t.TempDir(), tor, uint32(station), peers...)
	for _, sp := range spec.Speakers { // BMPConfig peers with AS 65010
		conf = strings.Replace(conf, fmt.Sprintf(" neighbor %s remote-as 65010\n", sp.LocalAddress),
			fmt.Sprintf(" neighbor %s remote-as %d\n", sp.LocalAddress, sp.ASN), 1)
	}
	testfrr.StartBGPD(t, tor, port, conf)
	return pipelineFindings(t, p, announceAll(t, ctx, spec.Speakers, tor, port))
}

// announceAll starts every speaker, peering with the router at to:port,
// announces its routes, and returns how many it announced.
func announceAll(t *testing.T, ctx context.Context, speakers []confSpeaker, to netip.Addr, port int32) int {
	t.Helper()
	n := 0
	for _, sp := range speakers {
		spk := startSpeaker(t, ctx, sp.LocalAddress, sp.ASN, to, port)
		for _, r := range sp.Routes {
			if err := spk.AnnounceWith(ctx, netip.MustParsePrefix(r.Prefix), netip.MustParseAddr(r.NextHop),
				speaker.Attrs{Communities: r.Communities}); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	return n
}

// startSpeaker starts a GoBGP speaker at local peering with the router
// (AS 65000) at to:port.
func startSpeaker(t *testing.T, ctx context.Context, local string, asn uint32, to netip.Addr, port int32) *speaker.Speaker {
	t.Helper()
	sp, err := speaker.Start(ctx, speaker.Config{Local: netip.MustParseAddr(local), ASN: asn,
		CollectorAddr: to, CollectorPort: port, CollectorASN: 65000}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sp.Stop)
	return sp
}

// pipelineFindings waits until the pipeline validated n routes and its
// findings held still for a second, and returns them as "rule prefix node".
func pipelineFindings(t *testing.T, p *pipeline, n int) []string {
	t.Helper()
	var got []string
	var since time.Time
	wait.For(t, fmt.Sprintf("%d routes validated, findings settled", n), 60*time.Second, func() error {
		st := p.loop.State()
		if st.Summary.Routes != n || st.WarmingUp {
			since = time.Time{}
			return fmt.Errorf("%d routes validated (warming up: %v), want %d", st.Summary.Routes, st.WarmingUp, n)
		}
		var now []string
		for _, f := range st.Findings {
			node := f.Finding.Node
			if node == "" {
				node = "-"
			}
			now = append(now, fmt.Sprintf("%s %s %s", f.Finding.Rule, f.Finding.Prefix, node))
		}
		slices.Sort(now)
		if !slices.Equal(now, got) || since.IsZero() {
			got, since = now, time.Now()
		}
		if time.Since(since) < time.Second {
			return fmt.Errorf("findings %q not settled yet", got)
		}
		return nil
	})
	return got
}
