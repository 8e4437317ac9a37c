package rib

import (
	"net/netip"
	"slices"
	"sync"
	"time"
)

// Initial-sync batching: while a peer sends its initial table (from
// Established until its End-of-RIB), its paths are staged in the store and
// published in one go at End-of-RIB, instead of one store update per UPDATE
// message. Every store update wakes the validation loop, and validating a
// half-received table is wasted work (a million routes arrive in seconds; each
// validation of the partial table costs a snapshot and a missing-route finding
// for every CIDR not yet announced). A family's End-of-RIB publishes that
// family's paths, whose later updates then go straight in; the sync ends when
// every family the session negotiated has sent its End-of-RIB (GoBGP may send
// one family's End-of-RIB before the other family's paths). A peer that sends
// no End-of-RIB (no graceful restart) is flushed once it has been quiet for
// syncSettle; nothing is held longer than syncMaxHold. After its first flush
// a peer's updates go straight to the store again.
const (
	syncSettle  = 200 * time.Millisecond
	syncMaxHold = 30 * time.Second
)

type syncPeer struct {
	first time.Time // the first staged update
	timer *time.Timer
	// awaiting are the families whose End-of-RIB has not come (none known:
	// any End-of-RIB ends the sync).
	awaiting []string
	// published is set for an address family (index: IPv6) whose End-of-RIB
	// came while another is awaited: its updates go straight to the store.
	published [2]bool
}

// initialSync stages the paths of peers in their initial sync. Its store is
// called with mu held, so a peer's paths reach it in the order they arrived
// whichever goroutine publishes.
type initialSync struct {
	mu            sync.Mutex
	peers         map[netip.Addr]*syncPeer
	store         syncStore
	settle, limit time.Duration
}

func newInitialSync(store syncStore) *initialSync {
	return &initialSync{peers: map[netip.Addr]*syncPeer{}, store: store, settle: syncSettle, limit: syncMaxHold}
}

// peerUp starts staging the peer's paths until the End-of-RIB of families.
func (s *initialSync) peerUp(peer netip.Addr, families []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked(peer)
	s.peers[peer] = &syncPeer{awaiting: slices.Clone(families)}
}

// update stages b while the peer is in its initial sync, else applies it.
func (s *initialSync) update(peer netip.Addr, b *Paths) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp, ok := s.peers[peer]
	switch {
	case !ok:
		s.store.apply(peer, b)
	case sp.published == [2]bool{}:
		s.stageLocked(peer, sp, b)
	case !b.mixed(): // one family is published: its paths go straight in
		if sp.published[b2i(b.isV6())] {
			s.store.apply(peer, b)
		} else {
			s.stageLocked(peer, sp, b)
		}
	default:
		for _, part := range b.byFamily() {
			if s.peers[peer] != sp || sp.published[b2i(part.isV6())] {
				s.store.apply(peer, part)
			} else {
				s.stageLocked(peer, sp, part)
			}
		}
	}
}

func (s *initialSync) stageLocked(peer netip.Addr, sp *syncPeer, b *Paths) {
	now := time.Now()
	if sp.first.IsZero() {
		sp.first = now
	}
	s.store.stage(peer, b)
	if now.Sub(sp.first) >= s.limit {
		s.flushLocked(peer)
		return
	}
	if sp.timer == nil {
		sp.timer = time.AfterFunc(s.settle, func() { s.flushIfQuiet(peer, sp) })
	} else {
		sp.timer.Reset(s.settle)
	}
}

// flushIfQuiet flushes a peer whose settle timer fired (unless it was
// flushed, or went down and up again, meanwhile).
func (s *initialSync) flushIfQuiet(peer netip.Addr, sp *syncPeer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.peers[peer] == sp {
		s.flushLocked(peer)
	}
}

// endOfRIB publishes the peer's staged paths of the family (all of them once
// no family is awaited), then runs eor (the store's End-of-RIB).
func (s *initialSync) endOfRIB(peer netip.Addr, family string, isV6 bool, eor func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sp, ok := s.peers[peer]; ok {
		sp.awaiting = slices.DeleteFunc(sp.awaiting, func(f string) bool { return f == family })
		if len(sp.awaiting) > 0 {
			s.store.publishFamily(peer, isV6)
			sp.published[b2i(isV6)] = true
			eor()
			return
		}
	}
	s.flushLocked(peer)
	eor()
}

// flush publishes the peer's staged paths and ends its initial sync.
func (s *initialSync) flush(peer netip.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked(peer)
}

func (s *initialSync) flushLocked(peer netip.Addr) {
	sp, ok := s.peers[peer]
	if !ok {
		return
	}
	delete(s.peers, peer)
	if sp.timer != nil {
		sp.timer.Stop()
	}
	s.store.publish(peer)
}

// syncStore is where initialSync sends a peer's paths: straight in (apply),
// or, during the peer's initial sync, into its staged table (stage), which
// publish makes its paths.
type syncStore interface {
	apply(peer netip.Addr, b *Paths)
	stage(peer netip.Addr, b *Paths)
	publish(peer netip.Addr)
	publishFamily(peer netip.Addr, isV6 bool)
}

// storeSync is the Store as a syncStore.
type storeSync struct{ s *Store }

func (t storeSync) apply(peer netip.Addr, b *Paths) {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	t.s.apply(peerKey{addr: peer}, b)
	t.s.bump()
}

func (t storeSync) stage(peer netip.Addr, b *Paths) {
	t.s.stagePaths(peer, &b.Attrs, b.Announced, b.Withdrawn)
}

func (t storeSync) publish(peer netip.Addr) { t.s.publishStaged(peer) }

func (t storeSync) publishFamily(peer netip.Addr, isV6 bool) {
	t.s.publishStagedFamily(peer, isV6)
}
