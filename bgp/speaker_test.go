package bgp

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/apiutil"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/osrg/gobgp/v3/pkg/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"google.golang.org/protobuf/types/known/anypb"
)

// speaker is a real GoBGP speaker playing a Cilium node: it connects from its
// own loopback address to the collector and announces routes.
type speaker struct {
	t    testing.TB
	srv  *server.BgpServer
	addr string
}

func freePort(t testing.TB) int32 {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return int32(l.Addr().(*net.TCPAddr).Port)
}

func startSpeaker(t testing.TB, local string, asn uint32, collectorPort int32, collectorASN uint32, gr bool) *speaker {
	t.Helper()
	srv := server.NewBgpServer(server.LoggerOption(gobgpLogger{zerolog.Nop()}))
	go srv.Serve()
	ctx := context.Background()
	if err := srv.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{Asn: asn, RouterId: local, ListenPort: -1}}); err != nil {
		t.Fatalf("starting speaker %s: %v", local, err)
	}
	var afis []*api.AfiSafi
	for _, f := range unicastFamilies {
		afis = append(afis, &api.AfiSafi{Config: &api.AfiSafiConfig{Family: f, Enabled: true},
			MpGracefulRestart: &api.MpGracefulRestart{Config: &api.MpGracefulRestartConfig{Enabled: gr}}})
	}
	peer := &api.Peer{
		Conf:         &api.PeerConf{NeighborAddress: "127.0.0.1", PeerAsn: collectorASN},
		Transport:    &api.Transport{LocalAddress: local, RemotePort: uint32(collectorPort)},
		EbgpMultihop: &api.EbgpMultihop{Enabled: true, MultihopTtl: 255},
		Timers:       &api.Timers{Config: &api.TimersConfig{ConnectRetry: 1, HoldTime: 9, KeepaliveInterval: 3}},
		AfiSafis:     afis,
	}
	if gr {
		peer.GracefulRestart = &api.GracefulRestart{Enabled: true, RestartTime: 5}
	}
	if err := srv.AddPeer(ctx, &api.AddPeerRequest{Peer: peer}); err != nil {
		t.Fatalf("adding the collector as peer of %s: %v", local, err)
	}
	s := &speaker{t: t, srv: srv, addr: local}
	t.Cleanup(s.stop)
	return s
}

func (s *speaker) stop() {
	s.srv.StopBgp(context.Background(), &api.StopBgpRequest{})
	s.srv.Stop()
}

func (s *speaker) path(prefix, nextHop string) *api.Path {
	s.t.Helper()
	p := netip.MustParsePrefix(prefix)
	origin, _ := apiutil.MarshalPathAttributes([]bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0)})
	var nlri *anypb.Any
	var fam *api.Family
	attrs := origin
	if p.Addr().Is4() {
		nlri, _ = apiutil.MarshalNLRI(bgp.NewIPAddrPrefix(uint8(p.Bits()), p.Addr().String()))
		fam = unicastFamilies[0]
		nh, _ := apiutil.MarshalPathAttributes([]bgp.PathAttributeInterface{bgp.NewPathAttributeNextHop(nextHop)})
		attrs = append(attrs, nh...)
	} else {
		n := bgp.NewIPv6AddrPrefix(uint8(p.Bits()), p.Addr().String())
		nlri, _ = apiutil.MarshalNLRI(n)
		fam = unicastFamilies[1]
		mp, _ := apiutil.MarshalPathAttributes([]bgp.PathAttributeInterface{
			bgp.NewPathAttributeMpReachNLRI(nextHop, []bgp.AddrPrefixInterface{n})})
		attrs = append(attrs, mp...)
	}
	return &api.Path{Family: fam, Nlri: nlri, Pattrs: attrs}
}

func (s *speaker) announce(prefix, nextHop string) {
	s.t.Helper()
	if _, err := s.srv.AddPath(context.Background(), &api.AddPathRequest{Path: s.path(prefix, nextHop)}); err != nil {
		s.t.Fatalf("announcing %s: %v", prefix, err)
	}
}

func (s *speaker) withdraw(prefix, nextHop string) {
	s.t.Helper()
	if err := s.srv.DeletePath(context.Background(), &api.DeletePathRequest{Path: s.path(prefix, nextHop)}); err != nil {
		s.t.Fatalf("withdrawing %s: %v", prefix, err)
	}
}

// received counts the prefixes the speaker received from the collector.
func (s *speaker) received() int {
	n := 0
	for _, f := range unicastFamilies {
		_ = s.srv.ListPath(context.Background(), &api.ListPathRequest{TableType: api.TableType_ADJ_IN,
			Name: "127.0.0.1", Family: f}, func(*api.Destination) { n++ })
	}
	return n
}

func (s *speaker) established() bool {
	up := false
	_ = s.srv.ListPeer(context.Background(), &api.ListPeerRequest{}, func(p *api.Peer) {
		up = p.State != nil && p.State.SessionState == api.PeerState_ESTABLISHED
	})
	return up
}

// startCollector runs a collector on a free port until the test ends.
func startCollector(t testing.TB, cfg Config, allowExport bool) *Collector {
	t.Helper()
	c, err := NewCollector(cfg, zerolog.Nop(), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	c.allowExport = allowExport
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
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
