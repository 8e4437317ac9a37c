package rib

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
			s.Up(Direct(peer), PeerInfo{Address: peer, State: "established"})
			if tc.before != nil {
				s.updateNow(Direct(peer), attrs(), nlri(tc.before...), nil)
				s.Down(Direct(peer), "idle", time.Minute) // kept stale
				s.Up(Direct(peer), PeerInfo{Address: peer, State: "established"})
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
// during the initial sync readers see nothing of the new table; a family's
// End-of-RIB shows that family's paths (the End-of-RIB itself after them),
// and its later updates go straight in, while the other family's stay staged
// until their own; afterwards updates go straight in.
func TestInitialSyncStagesInTheStore(t *testing.T) {
	peer := netip.MustParseAddr("127.0.0.2")
	s := NewStore()
	initial := newInitialSync(storeSync{s})
	s.Up(Direct(peer), PeerInfo{Address: peer, State: "established"})
	initial.peerUp(peer, []string{"ipv4-unicast", "ipv6-unicast"})
	batch := func(p string) *Paths {
		return &Paths{Attrs: validator.Attributes{Peer: peer, NextHop: peer},
			Announced: []NLRI{{Prefix: netip.MustParsePrefix(p)}}}
	}
	shown := func(when string, want int) {
		t.Helper()
		if n, r := s.Len(), s.Peers()[0].Routes; n != want || r != want {
			t.Fatalf("%s the store shows %d paths (peer counts %d), want %d", when, n, r, want)
		}
	}
	initial.update(peer, batch("10.0.1.0/24"))
	initial.update(peer, batch("fd00:1::/64"))
	initial.update(peer, batch("10.0.2.0/24"))
	shown("during the initial sync", 0)
	endOfRIB := func(family string, isV6 bool, want int) {
		t.Helper()
		var atEoR int
		initial.endOfRIB(peer, family, isV6, func() { atEoR = s.Len(); s.endOfRIB(peerKey{addr: peer}, family, isV6) })
		if atEoR != want {
			t.Fatalf("at the %s End-of-RIB %d paths, want %d", family, atEoR, want)
		}
	}
	endOfRIB("ipv6-unicast", true, 1)
	shown("after the IPv6 End-of-RIB", 1)
	initial.update(peer, batch("fd00:2::/64"))
	shown("after the IPv6 End-of-RIB, an IPv6 update", 2)
	initial.update(peer, batch("10.0.3.0/24"))
	shown("before the IPv4 End-of-RIB, an IPv4 update", 2)
	endOfRIB("ipv4-unicast", false, 5)
	shown("after both End-of-RIBs", 5)
	initial.update(peer, batch("10.0.4.0/24"))
	shown("after the initial sync, an update", 6)
}
