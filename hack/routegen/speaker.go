package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/apiutil"
	gblog "github.com/osrg/gobgp/v3/pkg/log"
	"github.com/osrg/gobgp/v3/pkg/packet/bgp"
	"github.com/osrg/gobgp/v3/pkg/server"
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
	s := server.NewBgpServer(server.LoggerOption(&quietLogger{name: sp.Name}))
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
		if _, err := s.AddPath(ctx, &api.AddPathRequest{TableType: api.TableType_GLOBAL, Path: p}); err != nil {
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
func routePath(r Route) (*api.Path, error) {
	pfx := r.prefix()
	attrs := []bgp.PathAttributeInterface{bgp.NewPathAttributeOrigin(bgp.BGP_ORIGIN_ATTR_TYPE_IGP)}
	var nlri bgp.AddrPrefixInterface
	if pfx.Addr().Is4() {
		nlri = bgp.NewIPAddrPrefix(uint8(pfx.Bits()), pfx.Addr().String())
		attrs = append(attrs, bgp.NewPathAttributeNextHop(r.NextHop))
	} else {
		nlri = bgp.NewIPv6AddrPrefix(uint8(pfx.Bits()), pfx.Addr().String())
		attrs = append(attrs, bgp.NewPathAttributeMpReachNLRI(r.NextHop, []bgp.AddrPrefixInterface{nlri}))
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
	return apiutil.NewPath(nlri, false, attrs, time.Now())
}

func (ss *speakers) stop() {
	var wg sync.WaitGroup
	for _, s := range ss.servers {
		wg.Add(1)
		go func(s *server.BgpServer) {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = s.StopBgp(ctx, &api.StopBgpRequest{})
			s.Stop()
		}(s)
	}
	wg.Wait()
	ss.servers = nil
}

// quietLogger prints warnings and errors of an in-process speaker to stderr.
type quietLogger struct {
	name  string
	level gblog.LogLevel
}

func (l *quietLogger) out(lvl, msg string, f gblog.Fields) {
	fmt.Fprintf(os.Stderr, "routegen: speaker %s: %s: %s %v\n", l.name, lvl, msg, map[string]interface{}(f))
}
func (l *quietLogger) Panic(msg string, f gblog.Fields) { l.out("PANIC", msg, f); panic(msg) }
func (l *quietLogger) Fatal(msg string, f gblog.Fields) { l.out("FATAL", msg, f); os.Exit(1) }
func (l *quietLogger) Error(msg string, f gblog.Fields) { l.out("error", msg, f) }
func (l *quietLogger) Warn(msg string, f gblog.Fields) {
	if verbose {
		l.out("warn", msg, f)
	}
}
func (l *quietLogger) Info(msg string, f gblog.Fields) {
	if verbose {
		l.out("info", msg, f)
	}
}
func (l *quietLogger) Debug(string, gblog.Fields) {}
func (l *quietLogger) SetLevel(lv gblog.LogLevel) { l.level = lv }
func (l *quietLogger) GetLevel() gblog.LogLevel   { return l.level }
