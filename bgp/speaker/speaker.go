// Package speaker is a real GoBGP speaker playing a Cilium node: it connects
// from its own address to a collector and announces routes with the node's
// next hop. The demo's nodes are speakers, and so are the tests' and the
// bench harness's.
package speaker

import (
	"context"
	"fmt"
	"net/netip"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/server"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/gobgplog"
)

// Speaker is one node's GoBGP server with its session to the collector.
type Speaker struct {
	srv  *server.BgpServer
	Addr netip.Addr
}

// Config says who the speaker is and where the collector listens.
type Config struct {
	Local         netip.Addr // the speaker's address, also its router ID when IPv4
	ASN           uint32
	CollectorAddr netip.Addr
	CollectorPort int32
	CollectorASN  uint32
	// RestartTime > 0 enables graceful restart with that restart time (seconds).
	RestartTime uint32
	Password    string
}

// Start starts a speaker that connects to the collector.
func Start(ctx context.Context, cfg Config, log zerolog.Logger) (*Speaker, error) {
	srv := server.NewBgpServer(gobgplog.Option(log, nil))
	go srv.Serve()
	err := srv.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{Asn: cfg.ASN, RouterId: cfg.Local.String(),
		ListenPort: -1}})
	if err != nil {
		srv.Stop()
		return nil, fmt.Errorf("starting speaker %s: %w", cfg.Local, err)
	}
	gr := cfg.RestartTime > 0
	var afis []*api.AfiSafi
	for _, f := range []*api.Family{{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST},
		{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_UNICAST}} {
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
	s.srv.Stop() // StopBgp, then the rest
}

// UnicastPath is an IPv4 or IPv6 unicast path to announce from a GoBGP
// server (AddPath): origin IGP, the next hop, and extra attributes.
func UnicastPath(p netip.Prefix, nextHop netip.Addr, extra ...bgp.PathAttributeInterface) (*apiutil.Path, error) {
	n, err := bgp.NewIPAddrPrefix(p)
	if err != nil {
		return nil, fmt.Errorf("prefix %s: %w", p, err)
	}
	attrs := append([]bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(0)}, extra...)
	fam := bgp.RF_IPv4_UC
	if p.Addr().Is4() {
		nh, err := bgp.NewPathAttributeNextHop(nextHop)
		if err != nil {
			return nil, fmt.Errorf("next hop %s: %w", nextHop, err)
		}
		attrs = append(attrs, nh)
	} else {
		fam = bgp.RF_IPv6_UC
		mp, err := bgp.NewPathAttributeMpReachNLRI(fam, []bgp.PathNLRI{{NLRI: n}}, nextHop)
		if err != nil {
			return nil, fmt.Errorf("next hop %s: %w", nextHop, err)
		}
		attrs = append(attrs, mp)
	}
	return &apiutil.Path{Family: fam, Nlri: n, Attrs: attrs}, nil
}

// NextHopSelf is the next hop Cilium originates its paths with (pkg/bgp/types.NewPathForPrefix):
// the unspecified address of the prefix's family, which GoBGP replaces, per peer, with the
// session's local address; an IPv6 path over an IPv4 session gets it as IPv4-mapped IPv6
// (::ffff:a.b.c.d) in its MP_REACH_NLRI. The speaker sends an IPv6 path so, as Cilium does; an
// IPv4 path with 0.0.0.0 it does not send at all (seen with GoBGP v4.8.0 here, while Cilium's
// v4.7.0 sends it with the local address), so announce IPv4 with the session's address, which is
// the same on the wire. interop/cilium/DIFFERENCES.md.
func NextHopSelf(p netip.Prefix) netip.Addr {
	if p.Addr().Is4() {
		return netip.IPv4Unspecified()
	}
	return netip.IPv6Unspecified()
}

// Announce announces prefix with the given next hop.
func (s *Speaker) Announce(ctx context.Context, prefix netip.Prefix, nextHop netip.Addr) error {
	p, err := UnicastPath(prefix, nextHop)
	if err == nil {
		_, err = s.srv.AddPath(apiutil.AddPathRequest{Paths: []*apiutil.Path{p}})
	}
	if err != nil {
		return fmt.Errorf("announcing %s from %s: %w", prefix, s.Addr, err)
	}
	return nil
}

// Withdraw withdraws prefix.
func (s *Speaker) Withdraw(ctx context.Context, prefix netip.Prefix, nextHop netip.Addr) error {
	p, err := UnicastPath(prefix, nextHop)
	if err == nil {
		err = s.srv.DeletePath(apiutil.DeletePathRequest{Paths: []*apiutil.Path{p}})
	}
	if err != nil {
		return fmt.Errorf("withdrawing %s from %s: %w", prefix, s.Addr, err)
	}
	return nil
}

// Received counts the prefixes the speaker received from the collector.
func (s *Speaker) Received(ctx context.Context) int {
	n := 0
	for _, f := range []bgp.Family{bgp.RF_IPv4_UC, bgp.RF_IPv6_UC} {
		_ = s.srv.ListPath(apiutil.ListPathRequest{TableType: api.TableType_TABLE_TYPE_ADJ_IN, Family: f,
			Name: s.peerName(ctx)}, func(bgp.NLRI, []*apiutil.Path) { n++ })
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
		up = p.State != nil && p.State.SessionState == api.PeerState_SESSION_STATE_ESTABLISHED
	})
	return up
}
