package bgp

import (
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// TestStoreStagedTable: staged paths are invisible until published; a
// publication into a peer without paths takes the staged table as it is, and
// one over paths kept stale replaces them and applies the withdrawals that
// came meanwhile; a family dropped meanwhile does not come back; the staged
// paths keep what the UPDATE said when the feed reuses its buffers.
func TestStoreStagedTable(t *testing.T) {
	peer := netip.MustParseAddr("127.0.0.2")
	nlri := func(ps ...string) []NLRI {
		var out []NLRI
		for _, p := range ps {
			out = append(out, NLRI{Prefix: netip.MustParsePrefix(p)})
		}
		return out
	}
	attrs := func() *validator.Attributes {
		return &validator.Attributes{Peer: peer, NextHop: netip.MustParseAddr("10.1.0.1"), ASPath: []uint32{65010},
			Communities: []string{"65010:1"}}
	}
	for _, tc := range []struct {
		name   string
		before []string // announced (and published) before the session restarts
		stage  func(s *Store)
		then   func(s *Store) // after the check that staging changed nothing visible
		want   []string
	}{
		{name: "into an empty peer", stage: func(s *Store) {
			a := attrs()
			s.stagePaths(peer, a, nlri("10.0.1.0/24", "10.0.2.0/24"), nil)
			a.ASPath[0], a.Communities[0] = 1, "reused" // the decoder's buffers
			s.stagePaths(peer, attrs(), nlri("fd00::/64"), nlri("10.0.2.0/24"))
		}, want: []string{"10.0.1.0/24 65010 65010:1", "fd00::/64 65010 65010:1"}},
		{name: "over stale paths", before: []string{"10.0.1.0/24", "10.0.3.0/24", "10.0.4.0/24"},
			stage: func(s *Store) {
				s.stagePaths(peer, attrs(), nlri("10.0.1.0/24"), nil)
				s.stagePaths(peer, attrs(), nil, nlri("10.0.3.0/24"))
			}, want: []string{"10.0.1.0/24 65010 65010:1", "10.0.4.0/24 stale"}},
		{name: "a family dropped meanwhile", stage: func(s *Store) {
			s.stagePaths(peer, attrs(), nlri("10.0.1.0/24", "fd00::/64"), nil)
		}, then: func(s *Store) { s.DropFamily(peer, true) }, want: []string{"10.0.1.0/24 65010 65010:1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore()
			s.PeerUp(PeerInfo{Address: peer, State: "established"})
			if tc.before != nil {
				s.UpdatePaths(peer, attrs(), nlri(tc.before...), nil)
				s.PeerDown(peer, "idle", time.Minute) // kept stale
				s.PeerUp(PeerInfo{Address: peer, State: "established"})
			}
			held, version := s.Len(), s.Version()
			tc.stage(s)
			if s.Len() != held || s.Version() != version || s.Peers()[0].Routes != held {
				t.Fatalf("staging changed what readers see: %d paths (was %d), version %d (was %d)",
					s.Len(), held, s.Version(), version)
			}
			if tc.then != nil {
				tc.then(s)
				version = s.Version()
			}
			s.publishStaged(peer)
			rs, _ := s.Routes()
			var got []string
			for _, r := range rs {
				g := r.Prefix.String() + " stale"
				if !r.Stale {
					g = r.Prefix.String() + " " + r.ASPathString() + " " + r.Communities[0]
				}
				got = append(got, g)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("published %q, want %q", got, tc.want)
			}
			if s.Peers()[0].Routes != len(tc.want) || s.Version() == version {
				t.Errorf("after publishing: peer counts %d routes (want %d), version %d unchanged",
					s.Peers()[0].Routes, len(tc.want), s.Version())
			}
		})
	}
}

// TestInitialSyncStagesInTheStore drives initialSync against a real Store:
// during the initial sync readers see nothing of the new table, at End-of-RIB
// all of it (the End-of-RIB itself after the paths), and afterwards updates
// go straight in.
func TestInitialSyncStagesInTheStore(t *testing.T) {
	peer := netip.MustParseAddr("127.0.0.2")
	s := NewStore()
	initial := newInitialSync(storeSync{s})
	s.PeerUp(PeerInfo{Address: peer, State: "established"})
	initial.peerUp(peer)
	batch := func(p string) *pathBatch {
		return &pathBatch{attrs: validator.Attributes{Peer: peer, NextHop: peer},
			announced: []NLRI{{Prefix: netip.MustParsePrefix(p)}}}
	}
	initial.update(peer, batch("10.0.1.0/24"))
	initial.update(peer, batch("10.0.2.0/24"))
	if n := s.Len(); n != 0 || s.Peers()[0].Routes != 0 {
		t.Fatalf("during the initial sync the store shows %d paths, want 0", n)
	}
	var atEoR int
	initial.endOfRIB(peer, func() { atEoR = s.Len(); s.EndOfRIB(peer, "ipv4-unicast", false) })
	if atEoR != 2 || s.Len() != 2 || s.Peers()[0].Routes != 2 {
		t.Fatalf("at End-of-RIB %d paths, after it %d (peer counts %d); want 2", atEoR, s.Len(), s.Peers()[0].Routes)
	}
	initial.update(peer, batch("10.0.3.0/24"))
	if s.Len() != 3 {
		t.Fatalf("after the initial sync an update did not reach the store: %d paths", s.Len())
	}
}
