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
	Address  netip.Addr `json:"address"`
	ASN      uint32     `json:"asn"`
	RouterID string     `json:"routerId"`
	State    string     `json:"state"`
	Dynamic  bool       `json:"dynamic"`
	Since    time.Time  `json:"since"`
	Routes   int        `json:"routes"`
	EndOfRIB []string   `json:"endOfRib"`
	// Families are the address families the session negotiated (direct
	// peers): the peer's table is complete once each has sent End-of-RIB.
	Families    []string      `json:"families,omitempty"`
	RestartTime time.Duration `json:"restartTime"`
	// StaleUntil is set while a restarting peer's paths are kept (graceful restart).
	StaleUntil time.Time `json:"staleUntil,omitempty"`
	// BMP is set for a peer monitored over BMP (see MonitoredPeers).
	BMP *BMPInfo `json:"bmp,omitempty"`
}

type pathKey struct {
	prefix netip.Prefix
	id     uint32
}

// peerKey identifies a peer: a direct BGP neighbor by its address (router
// unset), a peer monitored over BMP by the monitoring router and the BMP
// per-peer header.
type peerKey struct {
	router netip.Addr
	typ    uint8
	dist   uint64
	addr   netip.Addr
	view   uint8 // keyPrePolicy or keyPostPolicy (store_views.go)
}

type peerEntry struct {
	key    peerKey
	info   PeerInfo
	paths  pathTable
	staged *stagedTable // an initial table arriving (store_staged.go)
}

// Store holds every path received, per peer. It is safe for concurrent use and
// signals every change on Changed.
type Store struct {
	mu      sync.RWMutex
	peers   map[peerKey]*peerEntry
	drops   dropTracker // store_views.go
	attrs   *interner
	log     changeLog // store_changes.go
	version uint64
	changed chan struct{}
	now     func() time.Time
	// changedAt is when version last changed (ChangedAt).
	changedAt time.Time
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{peers: map[peerKey]*peerEntry{}, attrs: newInterner(), changed: make(chan struct{}, 1), now: time.Now}
}

// Changed receives a value after changes (coalesced: one pending signal at most).
func (s *Store) Changed() <-chan struct{} { return s.changed }

func (s *Store) bump() {
	s.version++
	s.changedAt = s.now()
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

func (s *Store) entry(peer netip.Addr) *peerEntry { return s.entryKey(peerKey{addr: peer}) }

func (s *Store) entryKey(k peerKey) *peerEntry {
	e, ok := s.peers[k]
	if !ok {
		e = &peerEntry{key: k, info: PeerInfo{Address: k.addr, State: "unknown"}, paths: newPathTable()}
		s.peers[k] = e
	}
	return e
}

// Update applies received paths (announcements and withdrawals) of one peer.
func (s *Store) Update(peer netip.Addr, announced []validator.Route, withdrawn []validator.Route) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entry(peer)
	for i := range withdrawn {
		s.withdraw(e, withdrawn[i].Prefix, withdrawn[i].PathID)
	}
	for i := range announced {
		r := &announced[i]
		s.announce(e, r.Prefix, r.PathID, s.attrs.ref(r.Attrs(), 1))
	}
	e.info.Routes = e.paths.len()
	s.bump()
}

func (s *Store) withdraw(e *peerEntry, p netip.Prefix, id uint32) {
	if old, ok := e.paths.del(p, id); ok {
		s.attrs.unref(old &^ staleBit)
		s.logChange(e, p, id)
	}
}

// announce stores a path whose attribute set is already referenced.
func (s *Store) announce(e *peerEntry, p netip.Prefix, id, set uint32) {
	old, ok := e.paths.put(p, id, set)
	if ok {
		s.attrs.unref(old &^ staleBit)
	}
	if !ok || old != set {
		s.logChange(e, p, id)
	}
}

// drop removes a peer's paths (all, or only the stale ones of a family).
func (s *Store) drop(e *peerEntry, match func(p netip.Prefix, stale bool) bool) {
	logEach := s.logsEach(e.paths.len())
	e.paths.each(func(p netip.Prefix, id uint32, v uint32) (uint32, bool) {
		if match != nil && !match(p, v&staleBit != 0) {
			return v, true
		}
		s.attrs.unref(v &^ staleBit)
		if logEach {
			s.logChange(e, p, id)
		}
		return 0, false
	})
	e.info.Routes = e.paths.len()
}

// PeerUp records an established session. Paths kept stale through a graceful
// restart stay stale, with their deadline, until End-of-RIB or ExpireStale.
func (s *Store) PeerUp(info PeerInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entry(info.Address)
	routes, staleUntil := e.info.Routes, e.info.StaleUntil
	e.info = info
	e.info.State, e.info.Since, e.info.Routes, e.info.StaleUntil = "established", s.now(), routes, staleUntil
	s.bump()
}

// PeerState records a session state other than established, between
// sessions: a peer whose session is up keeps "established" until PeerDown
// (the route feed reports a session's start and end; the watch API, on
// another goroutine, the states between sessions).
func (s *Store) PeerState(peer netip.Addr, state string, dynamic bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entry(peer)
	if e.info.State != state && e.info.State != "established" {
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
	if e.staged != nil { // what arrived before the session ended, then the end
		s.publish(e)
	}
	e.info.State, e.info.Since, e.info.EndOfRIB = state, s.now(), nil
	if keep <= 0 || e.paths.len() == 0 {
		s.drop(e, nil)
		e.info.StaleUntil = time.Time{}
	} else {
		logEach := s.logsEach(e.paths.len())
		e.paths.each(func(p netip.Prefix, id uint32, v uint32) (uint32, bool) {
			if logEach {
				s.logChange(e, p, id)
			}
			return v | staleBit, true
		})
		e.info.StaleUntil = s.now().Add(keep)
	}
	s.bump()
}

// Forget removes a peer that no longer exists (a dynamic peer without paths).
func (s *Store) Forget(peer netip.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.peers[peerKey{addr: peer}]; ok && e.paths.len() == 0 && e.staged == nil {
		delete(s.peers, peerKey{addr: peer})
		s.bump()
	}
}

// EndOfRIB records a peer's End-of-RIB for a family and drops the paths of that
// family that stayed stale through a graceful restart (RFC 4724 §4.2). Stale
// paths of the peer's other families stay until their own End-of-RIB or the
// peer's restart time runs out (ExpireStale).
func (s *Store) EndOfRIB(peer netip.Addr, family string, isV6 bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endOfRIB(s.entry(peer), family, isV6)
}

func (s *Store) endOfRIB(e *peerEntry, family string, isV6 bool) {
	if !slices.Contains(e.info.EndOfRIB, family) {
		e.info.EndOfRIB = append(e.info.EndOfRIB, family)
	}
	staleLeft := false
	s.drop(e, func(p netip.Prefix, stale bool) bool {
		if stale && p.Addr().Is6() != isV6 {
			staleLeft = true
			return false
		}
		return stale
	})
	if !staleLeft {
		e.info.StaleUntil = time.Time{}
	}
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
			s.drop(e, func(_ netip.Prefix, stale bool) bool { return stale })
			e.info.StaleUntil = time.Time{}
			s.bump()
			continue
		}
		if next.IsZero() || e.info.StaleUntil.Before(next) {
			next = e.info.StaleUntil
		}
	}
	return next
}

// Version returns the store's version (what Routes returns with the routes),
// which changes with every change, without copying a route.
func (s *Store) Version() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.version
}

// Peers returns every direct BGP peer, sorted by address (BMP-monitored peers
// are in MonitoredPeers).
func (s *Store) Peers() []PeerInfo {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]PeerInfo, 0, len(s.peers))
	for k, e := range s.peers {
		if !k.router.IsValid() {
			out = append(out, e.info)
		}
	}
	slices.SortFunc(out, func(a, b PeerInfo) int { return a.Address.Compare(b.Address) })
	return out
}

func (s *Store) setRestartTime(peer netip.Addr, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entry(peer).info.RestartTime = d
}
