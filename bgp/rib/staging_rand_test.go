package rib

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// TestStoreStagedMatchesUpdates: staging an initial table and publishing it
// (in one go, or one family first and the rest after more UPDATEs)
// leaves the store holding what applying the same UPDATEs in order does, and
// every attribute set's reference count equal to the paths using it. Random
// sequences: announcements and withdrawals of a few prefixes, IPv4 and IPv6,
// ADD-PATH IDs 0 and 1, repeats, attributes changing, over an empty peer or
// over paths kept stale by a graceful restart, with a restart time running
// out midway or not.
func TestStoreStagedMatchesUpdates(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	peer := netip.MustParseAddr("127.0.0.2")
	randNLRI := func() []NLRI { return randomNLRI(r) }
	randAttrs := func() *validator.Attributes {
		return &validator.Attributes{Peer: peer, NextHop: netip.MustParseAddr("10.1.0.1"),
			ASPath: []uint32{65000 + uint32(r.IntN(3))}}
	}
	for round := range 3000 {
		staged, direct := NewStore(), NewStore()
		now := time.Unix(1e9, 0)
		staged.now, direct.now = func() time.Time { return now }, func() time.Time { return now }
		for _, s := range []*Store{staged, direct} {
			s.Up(Direct(peer), PeerInfo{Address: peer, State: "established"})
		}
		if r.IntN(2) == 0 { // paths kept stale through a restart
			a, n := randAttrs(), randNLRI()
			for _, s := range []*Store{staged, direct} {
				s.updateNow(Direct(peer), a, n, nil)
				s.Down(Direct(peer), "idle", time.Minute)
				s.Up(Direct(peer), PeerInfo{Address: peer, State: "established"})
			}
		}
		expireAt := r.IntN(8)
		step := func(i int) {
			if i == expireAt && r.IntN(2) == 0 { // the restart time runs out
				for _, s := range []*Store{staged, direct} {
					s.ExpireStale(now.Add(2 * time.Minute))
				}
			}
			a, ann, wd := randAttrs(), randNLRI(), randNLRI()
			staged.stagePaths(peer, a, ann, wd)
			direct.updateNow(Direct(peer), a, ann, wd)
		}
		for i := range 8 {
			step(i)
		}
		if r.IntN(2) == 0 { // one family's End-of-RIB first, then more UPDATEs
			staged.publishStagedFamily(peer, r.IntN(2) == 0)
			for i := range r.IntN(4) {
				step(8 + i)
			}
		}
		staged.publishStaged(peer)
		got, _ := table(staged)
		want, _ := table(direct)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d: staged and published\n%v\nin order\n%v", round, got, want)
		}
		for _, s := range []*Store{staged, direct} {
			if err := checkRefs(s); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}

// checkRefs reports an attribute set whose reference count is not the number
// of paths (visible or staged) using it.
func checkRefs(s *Store) error {
	uses := map[uint32]int{}
	for _, e := range s.peers {
		count := func(_ netip.Prefix, _, v uint32) (uint32, bool) { uses[v&^staleBit]++; return v, true }
		e.paths.each(count)
		if e.staged != nil {
			e.staged.paths.each(count)
		}
	}
	for i, set := range s.attrs.sets {
		if set.refs != uses[uint32(i)] {
			return fmt.Errorf("attribute set %d: %d references, %d paths", i, set.refs, uses[uint32(i)])
		}
	}
	return nil
}
