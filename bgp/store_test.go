package bgp

import (
	"net/netip"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

func TestStoreGracefulRestart(t *testing.T) {
	peer := netip.MustParseAddr("127.0.1.11")
	v4 := validator.Route{Prefix: netip.MustParsePrefix("10.244.1.0/24"), Peer: peer}
	v6 := validator.Route{Prefix: netip.MustParsePrefix("fd00:10:244:1::/64"), Peer: peer}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name      string
		keep      time.Duration
		then      func(s *Store)
		wantRoute int
		wantStale int
	}{
		{name: "no graceful restart: dropped at once", wantRoute: 0},
		{name: "graceful restart: kept as stale", keep: 10 * time.Second, wantRoute: 2, wantStale: 2},
		{name: "restart time runs out", keep: 10 * time.Second,
			then: func(s *Store) { s.ExpireStale(now.Add(11 * time.Second)) }},
		{name: "not yet run out", keep: 10 * time.Second, wantRoute: 2, wantStale: 2,
			then: func(s *Store) { s.ExpireStale(now.Add(9 * time.Second)) }},
		{name: "peer back, re-announces IPv4, End-of-RIB for both", keep: 10 * time.Second, wantRoute: 1,
			then: func(s *Store) {
				s.PeerUp(PeerInfo{Address: peer})
				s.Update(peer, []validator.Route{v4}, nil)
				s.EndOfRIB(peer, "ipv4-unicast", false)
				s.EndOfRIB(peer, "ipv6-unicast", true)
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore()
			s.now = func() time.Time { return now }
			s.PeerUp(PeerInfo{Address: peer})
			s.Update(peer, []validator.Route{v4, v6}, nil)
			s.PeerDown(peer, "idle", tc.keep)
			if tc.then != nil {
				tc.then(s)
			}
			rs, _ := s.Routes()
			stale := 0
			for _, r := range rs {
				if r.Stale {
					stale++
				}
			}
			if len(rs) != tc.wantRoute || stale != tc.wantStale {
				t.Errorf("routes %d (stale %d), want %d (stale %d)", len(rs), stale, tc.wantRoute, tc.wantStale)
			}
		})
	}
}
