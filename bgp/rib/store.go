package rib

import (
	"net/netip"
	"slices"
	"sync"
	"time"
)

type peerEntry struct {
	key    peerKey
	info   PeerInfo
	paths  pathTable
	staged *stagedTable // an initial table arriving (staging.go)
}

// Store holds every path received, per peer. It is safe for concurrent use and
// signals every change on Changed.
type Store struct {
	mu      sync.RWMutex
	peers   map[peerKey]*peerEntry
	drops   dropTracker   // policy_drops.go
	sent    sentTracker   // views.go
	policy  policyTracker // policy_view.go
	attrs   *interner
	log     changeLog // changes.go
	version uint64
	changed chan struct{}
	now     func() time.Time
	// changedAt is when version last changed (ChangedAt).
	changedAt time.Time
	// sync stages direct peers' initial tables (initial_sync.go); it calls
	// the store, never the other way round with mu held.
	sync *initialSync
}

// NewStore returns an empty store.
func NewStore() *Store {
	s := &Store{peers: map[peerKey]*peerEntry{}, attrs: newInterner(), changed: make(chan struct{}, 1), now: time.Now}
	s.sync = newInitialSync(storeSync{s})
	return s
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
		s.noteSent(k, true) // a new view may shadow another, whoever made it (End-of-RIB, SetView, a path)
	}
	return e
}

// Version returns the store's version (what Routes returns with the routes),
// which changes with every change, without copying a route.
func (s *Store) Version() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.version
}

// ChangedAt returns when the table last changed (any path of any peer, or a
// peer's state): the time the monitoring loop gives a route change it
// finds, to time how long the network took to follow the cluster. Zero
// before the first change.
func (s *Store) ChangedAt() time.Time {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.changedAt
}

// Peers returns every direct BGP peer, sorted by address (BMP-monitored peers
// are in MonitoredPeers).
func (s *Store) Peers() []PeerInfo {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]PeerInfo, 0, len(s.peers))
	for k, e := range s.peers {
		if !k.router.IsValid() {
			info := e.info
			info.Paths = info.Paths.clone()
			out = append(out, info)
		}
	}
	slices.SortFunc(out, func(a, b PeerInfo) int { return a.Address.Compare(b.Address) })
	return out
}
