package bgp

import (
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// syncRecorder records what initialSync hands to the store, in order.
type syncRecorder struct {
	mu  sync.Mutex
	got []string
}

func (r *syncRecorder) apply(peer netip.Addr, b *pathBatch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rt := range b.withdrawn {
		r.got = append(r.got, peer.String()+" -"+rt.Prefix.String())
	}
	for _, rt := range b.announced {
		r.got = append(r.got, peer.String()+" +"+rt.Prefix.String())
	}
}

func (r *syncRecorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, s)
}

func (r *syncRecorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

func announce(p string) *pathBatch {
	return &pathBatch{announced: []NLRI{{Prefix: netip.MustParsePrefix(p)}}}
}

func withdraw(p string) *pathBatch {
	return &pathBatch{withdrawn: []NLRI{{Prefix: netip.MustParsePrefix(p)}}}
}

// TestInitialSyncHoldsTheTableUntilEndOfRIB: a peer's initial table reaches
// the store in one go, in arrival order, when End-of-RIB arrives (or the peer
// goes quiet, or its session ends); afterwards, and for peers not in their
// initial sync, updates go straight through.
func TestInitialSyncHoldsTheTableUntilEndOfRIB(t *testing.T) {
	a, b := netip.MustParseAddr("127.0.1.11"), netip.MustParseAddr("127.0.1.12")
	for _, tc := range []struct {
		name   string
		settle time.Duration
		limit  time.Duration
		steps  func(s *initialSync, r *syncRecorder)
		before []string // seen right after the steps
		after  []string // seen once the settle time has passed
	}{
		{name: "held until End-of-RIB, in order", settle: time.Hour, limit: time.Hour,
			steps: func(s *initialSync, r *syncRecorder) {
				s.peerUp(a)
				s.update(a, announce("10.0.1.0/24"))
				s.update(a, withdraw("10.0.1.0/24"))
				s.update(a, announce("10.0.2.0/24"))
				r.add("before EoR")
				s.endOfRIB(a, func() { r.add("EoR") })
				s.update(a, announce("10.0.3.0/24"))
			},
			before: []string{"before EoR", "127.0.1.11 +10.0.1.0/24", "127.0.1.11 -10.0.1.0/24",
				"127.0.1.11 +10.0.2.0/24", "EoR", "127.0.1.11 +10.0.3.0/24"}},
		{name: "a peer not syncing goes straight through", settle: time.Hour, limit: time.Hour,
			steps: func(s *initialSync, r *syncRecorder) {
				s.peerUp(a)
				s.update(b, announce("10.0.9.0/24"))
				s.update(a, announce("10.0.1.0/24"))
			},
			before: []string{"127.0.1.12 +10.0.9.0/24"}},
		{name: "a quiet peer without End-of-RIB is flushed", settle: 20 * time.Millisecond, limit: time.Hour,
			steps: func(s *initialSync, r *syncRecorder) {
				s.peerUp(a)
				s.update(a, announce("10.0.1.0/24"))
			},
			before: nil, after: []string{"127.0.1.11 +10.0.1.0/24"}},
		{name: "session end flushes", settle: time.Hour, limit: time.Hour,
			steps: func(s *initialSync, r *syncRecorder) {
				s.peerUp(a)
				s.update(a, announce("10.0.1.0/24"))
				s.flush(a)
				r.add("down")
			},
			before: []string{"127.0.1.11 +10.0.1.0/24", "down"}},
		{name: "nothing is held past the limit", settle: time.Hour, limit: 0,
			steps: func(s *initialSync, r *syncRecorder) {
				s.peerUp(a)
				s.update(a, announce("10.0.1.0/24"))
				s.update(a, announce("10.0.2.0/24"))
			},
			before: []string{"127.0.1.11 +10.0.1.0/24", "127.0.1.11 +10.0.2.0/24"}},
		{name: "session up again restarts holding", settle: time.Hour, limit: time.Hour,
			steps: func(s *initialSync, r *syncRecorder) {
				s.peerUp(a)
				s.update(a, announce("10.0.1.0/24"))
				s.peerUp(a)
				s.update(a, announce("10.0.2.0/24"))
			},
			before: []string{"127.0.1.11 +10.0.1.0/24"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &syncRecorder{}
			s := newInitialSync(r.apply)
			s.settle, s.limit = tc.settle, tc.limit
			tc.steps(s, r)
			if got := r.seen(); !slices.Equal(got, tc.before) {
				t.Errorf("store got %q, want %q", got, tc.before)
			}
			if tc.after == nil {
				return
			}
			deadline := time.Now().Add(10 * time.Second)
			for !slices.Equal(r.seen(), tc.after) && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			if got := r.seen(); !slices.Equal(got, tc.after) {
				t.Errorf("after settling the store got %q, want %q", got, tc.after)
			}
		})
	}
}

// TestHeldBatchOwnsItsPaths: a held batch keeps what the UPDATE said when the
// feed's decoder reuses its buffers for the next one.
func TestHeldBatchOwnsItsPaths(t *testing.T) {
	nlri := []NLRI{{Prefix: netip.MustParsePrefix("10.0.1.0/24"), PathID: 1}}
	wd := []NLRI{{Prefix: netip.MustParsePrefix("10.0.9.0/24")}}
	b := &pathBatch{attrs: validator.Route{NextHop: netip.MustParseAddr("10.0.0.11"), ASPath: []uint32{65010},
		Communities: []string{"65010:1"}}, announced: nlri, withdrawn: wd}
	held := b.owned()
	nlri[0], wd[0] = NLRI{}, NLRI{}
	b.attrs.ASPath[0], b.attrs.Communities[0] = 1, "x"
	if held.announced[0].Prefix.String() != "10.0.1.0/24" || held.announced[0].PathID != 1 ||
		held.withdrawn[0].Prefix.String() != "10.0.9.0/24" {
		t.Errorf("held paths changed with the decoder's buffers: %+v", held)
	}
	if held.attrs.ASPath[0] != 65010 || held.attrs.Communities[0] != "65010:1" || !held.attrs.NextHop.IsValid() {
		t.Errorf("held attributes changed with the decoder's buffers: %+v", held.attrs)
	}
}
