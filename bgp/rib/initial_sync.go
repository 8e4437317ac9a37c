package rib

import (
	"net/netip"
	"slices"
	"sync"
	"time"
)

// isV6 reports whether the batch's first path is IPv6.
func (b *Paths) isV6() bool {
	for _, ns := range [][]NLRI{b.Announced, b.Withdrawn} {
		if len(ns) > 0 {
			return ns[0].Prefix.Addr().Is6()
		}
	}
	return false
}

// mixed reports whether the batch has paths of both address families: an
// UPDATE's batch is of one, but for an MP_REACH of one family beside an
// MP_UNREACH of the other.
func (b *Paths) mixed() bool {
	v6 := b.isV6()
	for _, ns := range [][]NLRI{b.Announced, b.Withdrawn} {
		for _, n := range ns {
			if n.Prefix.Addr().Is6() != v6 {
				return true
			}
		}
	}
	return false
}

// byFamily splits a mixed batch by address family.
func (b *Paths) byFamily() []*Paths {
	var parts [2]*Paths
	add := func(n NLRI, withdrawn bool) {
		i := b2i(n.Prefix.Addr().Is6())
		if parts[i] == nil {
			parts[i] = &Paths{Attrs: b.Attrs}
		}
		if withdrawn {
			parts[i].Withdrawn = append(parts[i].Withdrawn, n)
		} else {
			parts[i].Announced = append(parts[i].Announced, n)
		}
	}
	for _, n := range b.Withdrawn {
		add(n, true)
	}
	for _, n := range b.Announced {
		add(n, false)
	}
	return []*Paths{parts[0], parts[1]}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
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
