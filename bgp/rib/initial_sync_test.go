package rib

import (
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncRecorder records what initialSync makes visible in the store, in
// order: applied batches at once, staged ones when published.
type syncRecorder struct {
	mu     sync.Mutex
	got    []string
	staged map[netip.Addr][]string
}

func (r *syncRecorder) apply(peer netip.Addr, b *Paths) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, batchLines(peer, b)...)
}

func (r *syncRecorder) stage(peer netip.Addr, b *Paths) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.staged == nil {
		r.staged = map[netip.Addr][]string{}
	}
	r.staged[peer] = append(r.staged[peer], batchLines(peer, b)...)
}

func (r *syncRecorder) publish(peer netip.Addr) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, r.staged[peer]...)
	delete(r.staged, peer)
}

func (r *syncRecorder) publishFamily(peer netip.Addr, isV6 bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var rest []string
	for _, l := range r.staged[peer] {
		if strings.Contains(l, ":") == isV6 { // an IPv6 prefix has a colon
			r.got = append(r.got, l)
		} else {
			rest = append(rest, l)
		}
	}
	if r.staged != nil {
		r.staged[peer] = rest
	}
}

func batchLines(peer netip.Addr, b *Paths) []string {
	var out []string
	for _, rt := range b.Withdrawn {
		out = append(out, peer.String()+" -"+rt.Prefix.String())
	}
	for _, rt := range b.Announced {
		out = append(out, peer.String()+" +"+rt.Prefix.String())
	}
	return out
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

func announce(p string) *Paths {
	return &Paths{Announced: []NLRI{{Prefix: netip.MustParsePrefix(p)}}}
}

func withdraw(p string) *Paths {
	return &Paths{Withdrawn: []NLRI{{Prefix: netip.MustParsePrefix(p)}}}
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
				s.peerUp(a, nil)
				s.update(a, announce("10.0.1.0/24"))
				s.update(a, withdraw("10.0.1.0/24"))
				s.update(a, announce("10.0.2.0/24"))
				r.add("before EoR")
				s.endOfRIB(a, "ipv4-unicast", false, func() { r.add("EoR") })
				s.update(a, announce("10.0.3.0/24"))
			},
			before: []string{"before EoR", "127.0.1.11 +10.0.1.0/24", "127.0.1.11 -10.0.1.0/24",
				"127.0.1.11 +10.0.2.0/24", "EoR", "127.0.1.11 +10.0.3.0/24"}},
		{name: "each family at its End-of-RIB, the sync ends with the last", settle: time.Hour, limit: time.Hour,
			steps: func(s *initialSync, r *syncRecorder) {
				s.peerUp(a, []string{"ipv4-unicast", "ipv6-unicast"})
				s.update(a, announce("10.0.1.0/24"))
				s.endOfRIB(a, "ipv4-unicast", false, func() { r.add("EoR ipv4") })
				s.update(a, announce("fd00:1::/64"))
				s.update(a, announce("10.0.2.0/24")) // IPv4 is complete: straight in
				s.endOfRIB(a, "ipv6-unicast", true, func() { r.add("EoR ipv6") })
				s.update(a, announce("fd00:2::/64"))
			},
			before: []string{"127.0.1.11 +10.0.1.0/24", "EoR ipv4", "127.0.1.11 +10.0.2.0/24",
				"127.0.1.11 +fd00:1::/64", "EoR ipv6", "127.0.1.11 +fd00:2::/64"}},
		{name: "a batch of both families is split", settle: time.Hour, limit: time.Hour,
			steps: func(s *initialSync, r *syncRecorder) {
				s.peerUp(a, []string{"ipv4-unicast", "ipv6-unicast"})
				s.update(a, announce("10.0.1.0/24"))
				s.endOfRIB(a, "ipv4-unicast", false, func() { r.add("EoR ipv4") })
				both := announce("fd00:1::/64")
				both.Withdrawn = withdraw("10.0.1.0/24").Withdrawn
				s.update(a, both)
				s.endOfRIB(a, "ipv6-unicast", true, func() { r.add("EoR ipv6") })
			},
			before: []string{"127.0.1.11 +10.0.1.0/24", "EoR ipv4", "127.0.1.11 -10.0.1.0/24",
				"127.0.1.11 +fd00:1::/64", "EoR ipv6"}},
		{name: "a peer not syncing goes straight through", settle: time.Hour, limit: time.Hour,
			steps: func(s *initialSync, r *syncRecorder) {
				s.peerUp(a, nil)
				s.update(b, announce("10.0.9.0/24"))
				s.update(a, announce("10.0.1.0/24"))
			},
			before: []string{"127.0.1.12 +10.0.9.0/24"}},
		{name: "a quiet peer without End-of-RIB is flushed", settle: 20 * time.Millisecond, limit: time.Hour,
			steps: func(s *initialSync, r *syncRecorder) {
				s.peerUp(a, nil)
				s.update(a, announce("10.0.1.0/24"))
			},
			before: nil, after: []string{"127.0.1.11 +10.0.1.0/24"}},
		{name: "session end flushes", settle: time.Hour, limit: time.Hour,
			steps: func(s *initialSync, r *syncRecorder) {
				s.peerUp(a, nil)
				s.update(a, announce("10.0.1.0/24"))
				s.flush(a)
				r.add("down")
			},
			before: []string{"127.0.1.11 +10.0.1.0/24", "down"}},
		{name: "nothing is held past the limit", settle: time.Hour, limit: 0,
			steps: func(s *initialSync, r *syncRecorder) {
				s.peerUp(a, nil)
				s.update(a, announce("10.0.1.0/24"))
				s.update(a, announce("10.0.2.0/24"))
			},
			before: []string{"127.0.1.11 +10.0.1.0/24", "127.0.1.11 +10.0.2.0/24"}},
		{name: "session up again restarts holding", settle: time.Hour, limit: time.Hour,
			steps: func(s *initialSync, r *syncRecorder) {
				s.peerUp(a, nil)
				s.update(a, announce("10.0.1.0/24"))
				s.peerUp(a, nil)
				s.update(a, announce("10.0.2.0/24"))
			},
			before: []string{"127.0.1.11 +10.0.1.0/24"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &syncRecorder{}
			s := newInitialSync(r)
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
