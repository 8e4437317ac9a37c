package main

import (
	"context"
	"fmt"
	"runtime"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
	"github.com/osrg/gobgp/v4/pkg/server"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/hack/bench/ingest"
)

// speakerLocal is the GoBGP speaker's address (the raw sender uses 127.0.0.2).
const speakerLocal = "127.0.0.3"

// gobgpSpeaker is the second sender: a real GoBGP server in the harness
// process holding the workload in its RIB; each trial adds the collector as
// a peer (GoBGP then sends the whole RIB, packing paths that share attributes)
// and removes it afterwards.
type gobgpSpeaker struct {
	srv   *server.BgpServer
	estab chan time.Time
}

func newGobgpSpeaker(ctx context.Context, w ingest.Workload) (*gobgpSpeaker, error) {
	srv := server.NewBgpServer(quietLogger())
	go srv.Serve()
	if err := srv.StartBgp(ctx, &api.StartBgpRequest{Global: &api.Global{Asn: 65000, RouterId: speakerLocal,
		ListenPort: -1}}); err != nil {
		srv.Stop()
		return nil, fmt.Errorf("starting the GoBGP speaker: %w", err)
	}
	s := &gobgpSpeaker{srv: srv, estab: make(chan time.Time, 1)}
	err := srv.WatchEvent(ctx, server.WatchEventMessageCallbacks{
		OnPeerUpdate: func(ev *apiutil.WatchEventMessage_PeerEvent, _ time.Time) {
			if ev.Type == apiutil.PEER_EVENT_STATE && ev.Peer.State.SessionState == bgp.BGP_FSM_ESTABLISHED {
				select {
				case s.estab <- time.Now():
				default:
				}
			}
		}}, server.WatchPeer())
	if err != nil {
		s.stop()
		return nil, err
	}
	if err := s.load(ctx, w); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// load adds every prefix of the workload to the speaker's RIB.
func (s *gobgpSpeaker) load(ctx context.Context, w ingest.Workload) error {
	localPrefAttr := bgp.NewPathAttributeLocalPref(localPref)
	workers := runtime.GOMAXPROCS(0) * 2
	errc := make(chan error, workers)
	for g := 0; g < workers; g++ {
		go func() {
			for k := g; k < w.Nodes; k += workers {
				nh := w.NodeAddr(k)
				for i := k * w.PerNode; i < min((k+1)*w.PerNode, w.N); i++ {
					p := w.Prefix(i)
					path, err := speaker.UnicastPath(p, nh, localPrefAttr)
					if err == nil {
						_, err = s.srv.AddPath(apiutil.AddPathRequest{Paths: []*apiutil.Path{path}})
					}
					if err != nil {
						errc <- fmt.Errorf("adding %s to the speaker: %w", p, err)
						return
					}
				}
			}
			errc <- nil
		}()
	}
	var first error
	for range workers {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// connect adds the collector at 127.0.0.1:port as the speaker's peer and
// returns when the session is established.
func (s *gobgpSpeaker) connect(ctx context.Context, port int) (time.Time, error) {
	select {
	case <-s.estab:
	default:
	}
	fams := []*api.Family{{Afi: api.Family_AFI_IP, Safi: api.Family_SAFI_UNICAST},
		{Afi: api.Family_AFI_IP6, Safi: api.Family_SAFI_UNICAST}}
	var afis []*api.AfiSafi
	for _, f := range fams {
		afis = append(afis, &api.AfiSafi{Config: &api.AfiSafiConfig{Family: f, Enabled: true},
			MpGracefulRestart: &api.MpGracefulRestart{Config: &api.MpGracefulRestartConfig{Enabled: true}}})
	}
	err := s.srv.AddPeer(ctx, &api.AddPeerRequest{Peer: &api.Peer{
		Conf:      &api.PeerConf{NeighborAddress: "127.0.0.1", PeerAsn: 65000},
		Transport: &api.Transport{LocalAddress: speakerLocal, RemotePort: uint32(port)},
		Timers:    &api.Timers{Config: &api.TimersConfig{ConnectRetry: 1, HoldTime: 90, KeepaliveInterval: 30}},
		AfiSafis:  afis,
		// Graceful restart makes GoBGP send End-of-RIB after the initial table.
		GracefulRestart: &api.GracefulRestart{Enabled: true, RestartTime: 120},
	}})
	if err != nil {
		return time.Time{}, fmt.Errorf("adding the collector as the speaker's peer: %w", err)
	}
	select {
	case t := <-s.estab:
		return t, nil
	case <-time.After(60 * time.Second):
		return time.Time{}, fmt.Errorf("the GoBGP speaker's session did not come up in 60s")
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	}
}

// disconnect removes the collector peer.
func (s *gobgpSpeaker) disconnect(ctx context.Context) {
	_ = s.srv.DeletePeer(ctx, &api.DeletePeerRequest{Address: "127.0.0.1"})
}

func (s *gobgpSpeaker) stop() {
	s.srv.Stop() // StopBgp, then the rest
}
