package bgp

import (
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// PeerInfo is what the collector knows about one peer, for the API and metrics.
type PeerInfo struct {
	Address     netip.Addr    `json:"address"`
	ASN         uint32        `json:"asn"`
	RouterID    string        `json:"routerId"`
	State       string        `json:"state"`
	Dynamic     bool          `json:"dynamic"`
	Since       time.Time     `json:"since"`
	Routes      int           `json:"routes"`
	EndOfRIB    []string      `json:"endOfRib"`
	RestartTime time.Duration `json:"restartTime"`
	// StaleUntil is set while a restarting peer's paths are kept (graceful restart).
	StaleUntil time.Time `json:"staleUntil,omitempty"`
}

type pathKey struct {
	prefix netip.Prefix
	id     uint32
}

type peerEntry struct {
	info   PeerInfo
	routes map[pathKey]validator.Route
}

// Store holds every path received, per peer. It is safe for concurrent use and
// signals every change on Changed.
type Store struct {
	mu      sync.RWMutex
	peers   map[netip.Addr]*peerEntry
	version uint64
	changed chan struct{}
	now     func() time.Time
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{peers: map[netip.Addr]*peerEntry{}, changed: make(chan struct{}, 1), now: time.Now}
}

// Changed receives a value after changes (coalesced: one pending signal at most).
func (s *Store) Changed() <-chan struct{} { return s.changed }

func (s *Store) bump() {
	s.version++
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

func (s *Store) entry(peer netip.Addr) *peerEntry {
	e, ok := s.peers[peer]
	if !ok {
		e = &peerEntry{info: PeerInfo{Address: peer, State: "unknown"}, routes: map[pathKey]validator.Route{}}
		s.peers[peer] = e
	}
	return e
}

// Update applies received paths (announcements and withdrawals) of one peer.
func (s *Store) Update(peer netip.Addr, announced []validator.Route, withdrawn []validator.Route) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entry(peer)
	for _, r := range withdrawn {
		delete(e.routes, pathKey{r.Prefix, r.PathID})
	}
	for _, r := range announced {
		r.Stale = false
		e.routes[pathKey{r.Prefix, r.PathID}] = r
	}
	e.info.Routes = len(e.routes)
	s.bump()
}

// PeerUp records an established session.
func (s *Store) PeerUp(info PeerInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entry(info.Address)
	routes := e.info.Routes
	e.info = info
	e.info.State, e.info.Since, e.info.Routes = "established", s.now(), routes
	s.bump()
}

// PeerState records a session state other than established.
func (s *Store) PeerState(peer netip.Addr, state string, dynamic bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entry(peer)
	if e.info.State != state {
		e.info.State, e.info.Since, e.info.Dynamic = state, s.now(), dynamic
		s.bump()
	}
}

// PeerDown handles a session that ended. GoBGP sends no withdrawals then, so
// the peer's paths are dropped here, or, when graceful restart was negotiated,
// kept as stale until keep has passed (ExpireStale drops them then).
func (s *Store) PeerDown(peer netip.Addr, state string, keep time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entry(peer)
	e.info.State, e.info.Since, e.info.EndOfRIB = state, s.now(), nil
	if keep <= 0 || len(e.routes) == 0 {
		clear(e.routes)
		e.info.Routes, e.info.StaleUntil = 0, time.Time{}
	} else {
		for k, r := range e.routes {
			r.Stale = true
			e.routes[k] = r
		}
		e.info.StaleUntil = s.now().Add(keep)
	}
	s.bump()
}

// Forget removes a peer that no longer exists (a dynamic peer without paths).
func (s *Store) Forget(peer netip.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.peers[peer]; ok && len(e.routes) == 0 {
		delete(s.peers, peer)
		s.bump()
	}
}

// EndOfRIB records a peer's End-of-RIB for a family and drops the paths of that
// family that stayed stale through a graceful restart.
func (s *Store) EndOfRIB(peer netip.Addr, family string, isV6 bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entry(peer)
	if !slices.Contains(e.info.EndOfRIB, family) {
		e.info.EndOfRIB = append(e.info.EndOfRIB, family)
	}
	for k, r := range e.routes {
		if r.Stale && k.prefix.Addr().Is6() == isV6 {
			delete(e.routes, k)
		}
	}
	e.info.Routes = len(e.routes)
	e.info.StaleUntil = time.Time{}
	s.bump()
}

// ExpireStale drops stale paths whose peer's restart time ran out; it returns
// when the next expiry is due (zero when none).
func (s *Store) ExpireStale(now time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var next time.Time
	for _, e := range s.peers {
		if e.info.StaleUntil.IsZero() {
			continue
		}
		if !now.Before(e.info.StaleUntil) {
			for k, r := range e.routes {
				if r.Stale {
					delete(e.routes, k)
				}
			}
			e.info.Routes, e.info.StaleUntil = len(e.routes), time.Time{}
			s.bump()
			continue
		}
		if next.IsZero() || e.info.StaleUntil.Before(next) {
			next = e.info.StaleUntil
		}
	}
	return next
}

// Routes returns every path held, and the store's version.
func (s *Store) Routes() ([]validator.Route, uint64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := 0
	for _, e := range s.peers {
		n += len(e.routes)
	}
	out := make([]validator.Route, 0, n)
	for _, e := range s.peers {
		for _, r := range e.routes {
			out = append(out, r)
		}
	}
	return out, s.version
}

// Peers returns every peer, sorted by address.
func (s *Store) Peers() []PeerInfo {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]PeerInfo, 0, len(s.peers))
	for _, e := range s.peers {
		out = append(out, e.info)
	}
	slices.SortFunc(out, func(a, b PeerInfo) int { return a.Address.Compare(b.Address) })
	return out
}

func (s *Store) peerState(peer netip.Addr) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if e, ok := s.peers[peer]; ok {
		return e.info.State
	}
	return ""
}

func (s *Store) setRestartTime(peer netip.Addr, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entry(peer).info.RestartTime = d
}
