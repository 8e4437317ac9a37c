package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"sync"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/server"
)

// speakers is a set of in-process GoBGP servers, one per spec speaker, each
// peering from its own loopback address with the collector at 127.0.0.1:port.
type speakers struct {
	servers []*server.BgpServer
}

var (
	familyV4 = &api.Family{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST}
	familyV6 = &api.Family{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_UNICAST}
)

// startSpeakers starts one GoBGP server per speaker. They do not listen; each
// actively connects to the collector at 127.0.0.1:port from its localAddress.
func startSpeakers(ctx context.Context, spec *Spec, port int) (*speakers, error) {
	ss := &speakers{}
	for _, sp := range spec.Speakers {
		s, err := startSpeaker(ctx, spec, sp, port)
		if err != nil {
			ss.stop()
			return nil, fmt.Errorf("speaker %s: %w", sp.Name, err)
		}
		ss.servers = append(ss.servers, s)
	}
	return ss, nil
}

func startSpeaker(ctx context.Context, spec *Spec, sp Speaker, port int) (*server.BgpServer, error) {
	s := server.NewBgpServer(quietLogger(sp.Name))
	go s.Serve()
	ok := false
	defer func() {
		if !ok {
			s.Stop()
		}
	}()
	if err := s.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{
		Asn:        sp.ASN,
		RouterId:   sp.RouterID,
		ListenPort: -1, // do not listen
	}}); err != nil {
		return nil, err
	}
	peer := &api.Peer{
		Conf: &api.PeerConf{NeighborAddress: "127.0.0.1", PeerAsn: spec.Collector.ASN},
		Transport: &api.Transport{
			LocalAddress: sp.LocalAddress,
			RemotePort:   uint32(port),
		},
		Timers: &api.Timers{Config: &api.TimersConfig{
			ConnectRetry:      1,
			HoldTime:          90,
			KeepaliveInterval: 30,
		}},
		AfiSafis: []*api.AfiSafi{
			{Config: &api.AfiSafiConfig{Family: familyV4, Enabled: true}},
			{Config: &api.AfiSafiConfig{Family: familyV6, Enabled: true}},
		},
	}
	if !spec.ibgp(sp) {
		peer.EbgpMultihop = &api.EbgpMultihop{Enabled: true, MultihopTtl: 255}
	}
	for _, r := range sp.Routes {
		p, err := routePath(r)
		if err != nil {
			return nil, fmt.Errorf("route %s: %w", r.Prefix, err)
		}
		if _, err := s.AddPath(apiutil.AddPathRequest{Paths: []*apiutil.Path{p}}); err != nil {
			return nil, fmt.Errorf("route %s: %w", r.Prefix, err)
		}
	}
	// Add the peer last so that the first UPDATEs already carry every route.
	if err := s.AddPeer(ctx, &api.AddPeerRequest{Peer: peer}); err != nil {
		return nil, err
	}
	ok = true
	return s, nil
}

// routePath builds a locally originated path whose next hop is exactly the
// spec's nextHop. GoBGP keeps an explicit next hop of a local path when
// sending to eBGP and iBGP peers (it only rewrites unspecified ones).
func routePath(r Route) (*apiutil.Path, error) {
	pfx := r.prefix()
	attrs := []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(bgp.BGP_ORIGIN_ATTR_TYPE_IGP)}
	nlri, err := bgp.NewIPAddrPrefix(pfx)
	if err != nil {
		return nil, err
	}
	nh, err := netip.ParseAddr(r.NextHop)
	if err != nil {
		return nil, fmt.Errorf("next hop %q: %w", r.NextHop, err)
	}
	family := bgp.RF_IPv4_UC
	if pfx.Addr().Is4() {
		a, err := bgp.NewPathAttributeNextHop(nh)
		if err != nil {
			return nil, err
		}
		attrs = append(attrs, a)
	} else {
		family = bgp.RF_IPv6_UC
		a, err := bgp.NewPathAttributeMpReachNLRI(family, []bgp.PathNLRI{{NLRI: nlri}}, nh)
		if err != nil {
			return nil, err
		}
		attrs = append(attrs, a)
	}
	var std []uint32
	var large []*bgp.LargeCommunity
	for _, c := range r.Communities {
		v, l, err := parseCommunity(c)
		if err != nil {
			return nil, err
		}
		if l != nil {
			large = append(large, bgp.NewLargeCommunity(l[0], l[1], l[2]))
		} else {
			std = append(std, v)
		}
	}
	if len(std) > 0 {
		attrs = append(attrs, bgp.NewPathAttributeCommunities(std))
	}
	if len(large) > 0 {
		attrs = append(attrs, bgp.NewPathAttributeLargeCommunities(large))
	}
	return &apiutil.Path{Family: family, Nlri: nlri, Attrs: attrs}, nil
}

func (ss *speakers) stop() {
	var wg sync.WaitGroup
	for _, s := range ss.servers {
		wg.Add(1)
		go func(s *server.BgpServer) {
			defer wg.Done()
			s.Stop() // StopBgp, then the rest
		}(s)
	}
	wg.Wait()
	ss.servers = nil
}

// quietLogger prints errors of an in-process speaker to stderr, and with
// -v its warnings and information too.
func quietLogger(name string) server.ServerOption {
	lv := &slog.LevelVar{}
	lv.Set(slog.LevelError)
	if verbose {
		lv.Set(slog.LevelInfo)
	}
	h := slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lv})
	return server.LoggerOption(slog.New(h).With(slog.String("routegen speaker", name)), lv)
}
