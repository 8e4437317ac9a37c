package bmp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/internal/accept"
)

// Store is where the station puts what it learns, each monitored peer as the
// origin of its paths; *rib.Store implements it.
type Store interface {
	rib.Writer // Update and EndOfRIB, through rib.RouteMonitoring
	Up(p rib.Peer, info rib.PeerInfo)
	SetView(p rib.Peer, sysName, view string)
	Clear(p rib.Peer)
	Down(p rib.Peer, state string, keep time.Duration)
	MonitoredPeers() []rib.PeerInfo
	// CountPeerPaths records a monitored peer's paths received and those
	// left out (treated as withdrawn) by reason, for the API's peers.
	CountPeerPaths(p rib.Peer, received int, reason string, dropped int)
}

// Config is the station's listener.
type Config struct {
	// Listen is host:port, e.g. ":11019".
	Listen string
	// AllowedSources limits who may connect; empty allows everyone.
	AllowedSources []netip.Prefix
}

// Station accepts BMP sessions and feeds a Store.
type Station struct {
	cfg   Config
	store Store
	log   zerolog.Logger
	// sampledLog is log for what a router may repeat many times a second
	// (malformed UPDATEs): a burst per minute.
	sampledLog zerolog.Logger
	metrics    *metrics
	ln         net.Listener
	// mu guards latest and every session's peers map (written by its own
	// session, read by another one from the same router when it ends).
	mu     sync.Mutex
	latest map[netip.Addr]*session
}

// New prepares a station; Listen binds it, Run serves.
func New(cfg Config, store Store, log zerolog.Logger, reg prometheus.Registerer) (*Station, error) {
	if cfg.Listen == "" {
		return nil, errors.New("BMP station: no listen address")
	}
	m, err := newMetrics(reg, store)
	if err != nil {
		return nil, err
	}
	l := log.With().Str("component", "bmp").Logger()
	return &Station{cfg: cfg, store: store, log: l, metrics: m, latest: map[netip.Addr]*session{},
		sampledLog: l.Sample(&zerolog.BurstSampler{Burst: 10, Period: time.Minute})}, nil
}

// Listen binds the listener (Run calls it when it was not called before).
func (s *Station) Listen() error {
	if s.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("BMP station: listening on %s: %w", s.cfg.Listen, err)
	}
	s.ln = ln
	return nil
}

// Addr is the bound address ("" before Listen).
func (s *Station) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Run accepts sessions until ctx ends; every session ends with it.
func (s *Station) Run(ctx context.Context) error {
	if err := s.Listen(); err != nil {
		return err
	}
	s.log.Info().Str("listen", s.Addr()).Msg("BMP station listening")
	return accept.Serve(ctx, s.ln, accept.Options{What: "BMP station", Allowed: s.cfg.AllowedSources,
		Refused: func(router netip.Addr) {
			s.metrics.refused.Inc()
			s.log.Warn().Str("router", router.String()).Msg("refusing a BMP session from outside the allowed sources")
		}}, s.log, s.serve)
}

// serve runs one session; its monitored peers are forgotten when it ends.
func (s *Station) serve(ctx context.Context, conn net.Conn, router netip.Addr) {
	s.metrics.sessions.Inc()
	defer s.metrics.sessions.Dec()
	sess := newSession(s, router)
	log := s.log.With().Str("router", router.String()).Logger()
	log.Info().Msg("BMP session opened")
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	err := sess.run(conn)
	conn.Close()
	sess.forget()
	ev := log.Info()
	if err != nil && !errors.Is(err, errTerminated) && ctx.Err() == nil {
		s.metrics.sessionErrors.Inc()
		ev = log.Warn().Err(err)
	}
	ev.Str("sysName", sess.sysName).Msg("BMP session closed; its monitored peers' routes are dropped")
}
