package rtr

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/internal/accept"
	"github.com/routewarden/routewarden/validator"
	"github.com/routewarden/routewarden/validator/roa"
)

// Source is the cluster's truth (the inventory).
type Source interface {
	Cluster(now time.Time) (*validator.Cluster, uint64, error)
	InventoryStatus() validator.InventoryStatus
}

// Config is the RTR server's (config: rtr).
type Config struct {
	// Listen is host:port (RTR's registered port is 323; 8282 is customary).
	Listen string
	// AllowedClients limits who may connect; empty allows everyone.
	AllowedClients []netip.Prefix
	// Refresh, Retry and Expire are the End of Data timers (version 1).
	Refresh, Retry, Expire time.Duration
	// MaxDropShare is the largest share (0–1) of the served prefixes one
	// update may leave without an origin AS; a larger drop's withdrawals are
	// held (HoldDrop), its additions served.
	MaxDropShare float64
	// HoldDrop is how long a held drop must persist before it is served; 0
	// holds it until the drop shrinks below MaxDropShare or a restart.
	HoldDrop time.Duration
	// ROA derives the set.
	ROA roa.Options
	// Poll is how often the inventory is checked for a new version (250ms:
	// a new node's ROA is served within it of the informer's event).
	Poll time.Duration
	// WriteTimeout ends a session whose router stops reading (30s).
	WriteTimeout time.Duration
	// MaxSessions bounds the sessions served at once from clients outside
	// Routers (32); when they are all open, a newcomer takes the place of the
	// one quiet longest (at least PDUTimeout), else it is refused.
	MaxSessions int
	// Routers are the configured routers' addresses: their sessions never
	// count against MaxSessions and are never evicted for another client.
	Routers []netip.Prefix
	// PDUTimeout ends a session whose router does not send its first query,
	// or the rest of a PDU whose header it sent, within it (10s).
	PDUTimeout time.Duration
	// NotifyInterval is the least time between two Serial Notifies to a
	// router for a serial that only withdraws (60s: RFC 8210 section 8.2's
	// one a minute). A change after a quiet interval is notified at once;
	// later ones wait for the interval's end and are coalesced into one
	// notify of the then current serial. A serial that adds an origin (a new
	// node's CIDR, a VIP) or removes an AS0 ROA is notified at once, always:
	// a router must never reject a new node's route for want of its ROA
	// (docs/rtr.md). Tests shorten it.
	NotifyInterval time.Duration
}

// Server is the RTR cache server.
type Server struct {
	cfg     Config
	src     Source
	log     zerolog.Logger
	metrics *metrics
	cache   cache
	ln      net.Listener
	poke    chan struct{}

	mu       sync.Mutex
	sessions map[*session]struct{}
	clients  map[netip.Addr]int // sessions per router (its metric series go with the last)
	upd      updateState
	logs     logThrottle // lines about clients outside Routers
}

// New prepares a server; Listen binds it, Run serves.
func New(cfg Config, src Source, log zerolog.Logger, reg prometheus.Registerer) (*Server, error) {
	if cfg.Listen == "" {
		return nil, errors.New("RTR server: no listen address")
	}
	if cfg.Poll == 0 {
		cfg.Poll = 250 * time.Millisecond
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = 30 * time.Second
	}
	if cfg.MaxSessions == 0 {
		cfg.MaxSessions = 32
	}
	if cfg.PDUTimeout == 0 {
		cfg.PDUTimeout = 10 * time.Second
	}
	if cfg.NotifyInterval == 0 {
		cfg.NotifyInterval = time.Minute
	}
	s := &Server{cfg: cfg, src: src, log: log.With().Str("component", "rtr").Logger(),
		sessions: map[*session]struct{}{}, clients: map[netip.Addr]int{}, poke: make(chan struct{}, 1),
		logs: logThrottle{every: logEvery, burst: logBurst}}
	var id [2]byte
	_, _ = rand.Read(id[:])
	s.cache.session = binary.BigEndian.Uint16(id[:])
	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}
	s.metrics = m
	return s, nil
}

// Listen binds the listener (Run calls it when it was not called before).
func (s *Server) Listen() error {
	if s.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("RTR server: listening on %s: %w", s.cfg.Listen, err)
	}
	s.ln = ln
	return nil
}

// Addr is the bound address ("" before Listen).
func (s *Server) Addr() string {
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Poke asks for the inventory to be checked now (after a validation).
func (s *Server) Poke() {
	select {
	case s.poke <- struct{}{}:
	default:
	}
}

// Run serves routers and follows the inventory until ctx ends, or the
// listener fails (its error is returned once everything has stopped).
func (s *Server) Run(ctx context.Context) error {
	if err := s.Listen(); err != nil {
		return err
	}
	s.log.Info().Str("listen", s.Addr()).Msg("RTR server listening")
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // before wg.Wait: follow stops with the accept loop
	wg.Go(func() { s.follow(ctx) })
	return accept.Serve(ctx, s.ln, accept.Options{What: "RTR server", Allowed: s.cfg.AllowedClients,
		Refused: func(client netip.Addr) {
			s.metrics.refused.WithLabelValues("allowedClients").Inc()
			if ev, n := s.clientLog(client, s.log.Warn()); ev != nil {
				ev.Str("client", client.String()).Int("suppressedSince", n).Msg("refusing an RTR session from outside rtr.allowedClients")
			}
		}}, s.log, s.serve)
}

func (s *Server) serve(ctx context.Context, conn net.Conn, client netip.Addr) {
	s.mu.Lock()
	evict, reason, refuse := s.admitLocked(client, time.Now())
	if refuse != "" {
		s.mu.Unlock()
		conn.Close()
		s.metrics.refused.WithLabelValues(refuse).Inc()
		if ev, n := s.clientLog(client, s.log.Warn()); ev != nil {
			ev.Str("client", client.String()).Int("maxSessions", s.cfg.MaxSessions).Int("suppressedSince", n).
				Msg("refusing an RTR session: rtr.maxSessions are open, none quiet for long (list your routers in rtr.routers)")
		}
		return
	}
	if evict != nil {
		evict.evict(reason)
	}
	sess := newSession(s, conn, client)
	s.sessions[sess] = struct{}{}
	s.clients[client]++
	s.metrics.connected.WithLabelValues(client.String()).Inc()
	s.mu.Unlock()
	log := s.log.With().Str("client", conn.RemoteAddr().String()).Logger()
	if evict != nil {
		s.metrics.evicted.WithLabelValues(reason).Inc()
		if ev, n := s.clientLog(evict.client, log.Info()); ev != nil {
			ev.Str("evicted", evict.snapshot().Addr).Str("reason", reason).Int("suppressedSince", n).
				Msg("RTR: closing a quiet session to make room for a new one")
		}
	}
	if s.isRouter(client) {
		log.Info().Msg("RTR session opened")
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	err := sess.run(ctx)
	stop()
	s.mu.Lock() // the session is gone (its slot free) before its router sees the close
	delete(s.sessions, sess)
	if s.clients[client]--; s.clients[client] == 0 {
		delete(s.clients, client)
		s.metrics.forget(client.String())
	} else {
		s.metrics.connected.WithLabelValues(client.String()).Dec()
	}
	s.mu.Unlock()
	conn.Close()
	// One line a session (rate-limited for clients outside rtr.routers).
	ev, evicted := log.Info(), sess.evictedFor()
	if err != nil && ctx.Err() == nil && evicted == "" {
		ev = log.Warn().Err(err)
	}
	if ev, n := s.clientLog(client, ev); ev != nil {
		st := sess.snapshot()
		if evicted != "" {
			ev.Str("evicted", evicted)
		}
		ev.Dur("open", time.Since(st.Connected).Round(time.Millisecond)).Str("lastQuery", st.LastQueryType).
			Int("suppressedSince", n).Msg("RTR session closed")
	}
}

// notifyAll tells every session a new serial is out; never blocks. An
// urgent one (the serial lets a route in) is sent at once, not rate-limited.
func (s *Server) notifyAll(urgent bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sess := range s.sessions {
		ch := sess.notify
		if urgent {
			ch = sess.urgent
		}
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Clients lists the connected routers.
func (s *Server) Clients() []ClientStatus {
	s.mu.Lock()
	out := make([]ClientStatus, 0, len(s.sessions))
	for sess := range s.sessions {
		out = append(out, sess.snapshot())
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b ClientStatus) int { return a.Connected.Compare(b.Connected) })
	return out
}
