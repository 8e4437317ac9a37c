package bgp

import (
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// pathBatch is what one UPDATE brought from one peer: the announced paths
// share attrs (its Prefix and PathID unset).
type pathBatch struct {
	attrs                validator.Route
	announced, withdrawn []NLRI
}

// owned is b with its own copies of the slices the feed's decoder reuses, for
// holding it back (a held path costs its 40-byte NLRI).
func (b *pathBatch) owned() *pathBatch {
	o := &pathBatch{attrs: b.attrs, announced: slices.Clone(b.announced), withdrawn: slices.Clone(b.withdrawn)}
	o.attrs.ASPath, o.attrs.Communities = slices.Clone(b.attrs.ASPath), slices.Clone(b.attrs.Communities)
	return o
}

// Initial-sync batching: while a peer sends its initial table (from
// Established until its End-of-RIB), its paths are held back and handed to
// the store in one go at End-of-RIB, instead of one store update per UPDATE
// message. Every store update wakes the validation loop, and validating a
// half-received table is wasted work (a million routes arrive in seconds; each
// validation of the partial table costs a snapshot and a missing-route finding
// for every CIDR not yet announced). A peer that sends no End-of-RIB (no
// graceful restart) is flushed once it has been quiet for syncSettle; nothing
// is held longer than syncMaxHold. After its first flush a peer's updates go
// straight to the store again.
const (
	syncSettle  = 200 * time.Millisecond
	syncMaxHold = 30 * time.Second
)

type syncPeer struct {
	batches []*pathBatch
	first   time.Time
	timer   *time.Timer
}

// initialSync holds the paths of peers in their initial sync. apply hands a
// batch to the store; it is called with mu held, so batches reach the store
// in the order they arrived whichever goroutine flushes.
type initialSync struct {
	mu    sync.Mutex
	peers map[netip.Addr]*syncPeer
	apply func(peer netip.Addr, b *pathBatch)
	// reserve, when set, is told how many IPv4 and IPv6 paths a flush is
	// about to apply (the store sizes its tables once, not by regrowing).
	reserve       func(peer netip.Addr, v4, v6 int)
	settle, limit time.Duration
}

func newInitialSync(apply func(netip.Addr, *pathBatch)) *initialSync {
	return &initialSync{peers: map[netip.Addr]*syncPeer{}, apply: apply, settle: syncSettle, limit: syncMaxHold}
}

// peerUp starts holding back the peer's paths.
func (s *initialSync) peerUp(peer netip.Addr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked(peer)
	s.peers[peer] = &syncPeer{}
}

// update holds b back while the peer is in its initial sync, else applies it.
func (s *initialSync) update(peer netip.Addr, b *pathBatch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp, ok := s.peers[peer]
	if !ok {
		s.apply(peer, b)
		return
	}
	now := time.Now()
	if len(sp.batches) == 0 {
		sp.first = now
	}
	sp.batches = append(sp.batches, b.owned())
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

// endOfRIB flushes the peer's held paths, then runs eor (the store's End-of-RIB).
func (s *initialSync) endOfRIB(peer netip.Addr, eor func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushLocked(peer)
	eor()
}

// flush hands the peer's held paths to the store and ends its initial sync.
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
	if s.reserve != nil {
		v4, v6 := 0, 0
		for _, b := range sp.batches {
			for _, n := range b.announced {
				if n.Prefix.Addr().Is4() {
					v4++
				} else {
					v6++
				}
			}
		}
		s.reserve(peer, v4, v6)
	}
	for i, b := range sp.batches {
		sp.batches[i] = nil // let the held paths go as they are applied
		s.apply(peer, b)
	}
}
