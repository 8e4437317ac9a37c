package bgp

import (
	"context"
	"fmt"
	"net/netip"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/apiutil"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/osrg/gobgp/v3/pkg/server"
	"github.com/rs/zerolog"
	"google.golang.org/protobuf/types/known/anypb"
)

// Speaker is a real GoBGP speaker playing a Cilium node: it connects from its
// own address to a collector and announces routes with the node's next hop.
// routewarden demo and the tests use it.
type Speaker struct {
	srv  *server.BgpServer
	Addr netip.Addr
}

// SpeakerConfig says who the speaker is and where the collector listens.
type SpeakerConfig struct {
	Local         netip.Addr // the speaker's address, also its router ID when IPv4
	ASN           uint32
	CollectorAddr netip.Addr
	CollectorPort int32
	CollectorASN  uint32
	// RestartTime > 0 enables graceful restart with that restart time (seconds).
	RestartTime uint32
	Password    string
}

// StartSpeaker starts a speaker that connects to the collector.
func StartSpeaker(ctx context.Context, cfg SpeakerConfig, log zerolog.Logger) (*Speaker, error) {
	srv := server.NewBgpServer(server.LoggerOption(gobgpLogger{log}))
	go srv.Serve()
	err := srv.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{Asn: cfg.ASN, RouterId: cfg.Local.String(),
		ListenPort: -1}})
	if err != nil {
		srv.Stop()
		return nil, fmt.Errorf("starting speaker %s: %w", cfg.Local, err)
	}
	gr := cfg.RestartTime > 0
	var afis []*api.AfiSafi
	for _, f := range unicastFamilies {
		afis = append(afis, &api.AfiSafi{Config: &api.AfiSafiConfig{Family: f, Enabled: true},
			MpGracefulRestart: &api.MpGracefulRestart{Config: &api.MpGracefulRestartConfig{Enabled: gr}}})
	}
	peer := &api.Peer{
		Conf: &api.PeerConf{NeighborAddress: cfg.CollectorAddr.String(), PeerAsn: cfg.CollectorASN,
			AuthPassword: cfg.Password},
		Transport:    &api.Transport{LocalAddress: cfg.Local.String(), RemotePort: uint32(cfg.CollectorPort)},
		EbgpMultihop: &api.EbgpMultihop{Enabled: true, MultihopTtl: 255},
		Timers:       &api.Timers{Config: &api.TimersConfig{ConnectRetry: 1, HoldTime: 9, KeepaliveInterval: 3}},
		AfiSafis:     afis,
	}
	if gr {
		peer.GracefulRestart = &api.GracefulRestart{Enabled: true, RestartTime: cfg.RestartTime}
	}
	if err := srv.AddPeer(ctx, &api.AddPeerRequest{Peer: peer}); err != nil {
		srv.Stop()
		return nil, fmt.Errorf("adding the collector as peer of %s: %w", cfg.Local, err)
	}
	return &Speaker{srv: srv, Addr: cfg.Local}, nil
}

// Stop ends the session and the speaker.
func (s *Speaker) Stop() {
	_ = s.srv.StopBgp(context.Background(), &api.StopBgpRequest{})
	s.srv.Stop()
}

func (s *Speaker) path(p netip.Prefix, nextHop netip.Addr) *api.Path {
	origin, _ := apiutil.MarshalPathAttributes([]bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0)})
	var nlri *anypb.Any
	var fam *api.Family
	attrs := origin
	if p.Addr().Is4() {
		nlri, _ = apiutil.MarshalNLRI(bgp.NewIPAddrPrefix(uint8(p.Bits()), p.Addr().String()))
		fam = unicastFamilies[0]
		nh, _ := apiutil.MarshalPathAttributes([]bgp.PathAttributeInterface{bgp.NewPathAttributeNextHop(nextHop.String())})
		attrs = append(attrs, nh...)
	} else {
		n := bgp.NewIPv6AddrPrefix(uint8(p.Bits()), p.Addr().String())
		nlri, _ = apiutil.MarshalNLRI(n)
		fam = unicastFamilies[1]
		mp, _ := apiutil.MarshalPathAttributes([]bgp.PathAttributeInterface{
			bgp.NewPathAttributeMpReachNLRI(nextHop.String(), []bgp.AddrPrefixInterface{n})})
		attrs = append(attrs, mp...)
	}
	return &api.Path{Family: fam, Nlri: nlri, Pattrs: attrs}
}

// Announce announces prefix with the given next hop.
func (s *Speaker) Announce(ctx context.Context, prefix netip.Prefix, nextHop netip.Addr) error {
	if _, err := s.srv.AddPath(ctx, &api.AddPathRequest{Path: s.path(prefix, nextHop)}); err != nil {
		return fmt.Errorf("announcing %s from %s: %w", prefix, s.Addr, err)
	}
	return nil
}

// Withdraw withdraws prefix.
func (s *Speaker) Withdraw(ctx context.Context, prefix netip.Prefix, nextHop netip.Addr) error {
	if err := s.srv.DeletePath(ctx, &api.DeletePathRequest{Path: s.path(prefix, nextHop)}); err != nil {
		return fmt.Errorf("withdrawing %s from %s: %w", prefix, s.Addr, err)
	}
	return nil
}

// Received counts the prefixes the speaker received from the collector.
func (s *Speaker) Received(ctx context.Context) int {
	n := 0
	for _, f := range unicastFamilies {
		_ = s.srv.ListPath(ctx, &api.ListPathRequest{TableType: api.TableType_ADJ_IN, Family: f,
			Name: s.peerName(ctx)}, func(*api.Destination) { n++ })
	}
	return n
}

func (s *Speaker) peerName(ctx context.Context) string {
	name := ""
	_ = s.srv.ListPeer(ctx, &api.ListPeerRequest{}, func(p *api.Peer) { name = p.Conf.NeighborAddress })
	return name
}

// Established reports whether the session with the collector is up.
func (s *Speaker) Established(ctx context.Context) bool {
	up := false
	_ = s.srv.ListPeer(ctx, &api.ListPeerRequest{}, func(p *api.Peer) {
		up = p.State != nil && p.State.SessionState == api.PeerState_ESTABLISHED
	})
	return up
}
