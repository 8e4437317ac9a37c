package rib

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// TestStoreChangesCatchUp: a reader holding the table of an earlier version
// and applying Changes since then holds what Routes returns now, through
// random sequences of announcements, withdrawals, session ends with and
// without graceful restart, End-of-RIB, restart times running out, families
// dropped and staged tables published; it reads the whole table only when
// Changes says so, which a small change never does.
func TestStoreChangesCatchUp(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	peers := []netip.Addr{netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.3")}
	randNLRI := func() []NLRI { return randomNLRI(r) }
	caughtUp := 0
	for round := range 300 {
		s := NewStore()
		now := time.Unix(1e9, 0)
		s.now = func() time.Time { return now }
		held, version := table(s)
		for step := range 30 {
			peer := peers[r.IntN(len(peers))]
			attrs := &validator.Attributes{Peer: peer, NextHop: peer, ASPath: []uint32{65000 + uint32(r.IntN(3))}}
			switch op := r.IntN(10); {
			case op < 5:
				s.updateNow(Direct(peer), attrs, randNLRI(), randNLRI())
			case op == 5:
				s.Down(Direct(peer), "idle", time.Duration(r.IntN(2))*time.Minute)
			case op == 6:
				s.EndOfRIB(Direct(peer), "ipv4-unicast", r.IntN(2) == 0)
			case op == 7:
				now = now.Add(time.Duration(r.IntN(3)) * time.Minute)
				s.ExpireStale(now)
			case op == 8:
				s.DropFamily(peer, r.IntN(2) == 0)
			default:
				s.stagePaths(peer, attrs, randNLRI(), randNLRI())
				s.publishStaged(peer)
			}
			if r.IntN(3) == 0 {
				continue // catch up over several changes later
			}
			changed, gone, v, ok := s.Changes(version)
			if !ok {
				if len(s.log.entries) < maxChangeLog/4 && version >= s.log.from {
					t.Fatalf("round %d step %d: Changes refused a small change", round, step)
				}
				held, version = table(s)
				continue
			}
			caughtUp++
			for _, g := range gone {
				delete(held, fmt.Sprintf("%s %s #%d", g.Peer, g.Prefix, g.PathID))
			}
			for _, c := range changed {
				held[fmt.Sprintf("%s %s #%d", c.Peer, c.Prefix, c.PathID)] = describe(c)
			}
			version = v
			want, _ := table(s)
			if fmt.Sprint(held) != fmt.Sprint(want) {
				t.Fatalf("round %d step %d: caught up to\n%v\nthe store holds\n%v", round, step, held, want)
			}
		}
	}
	if caughtUp == 0 {
		t.Fatal("Changes never answered")
	}
	// A BMP-monitored peer with a direct peer's address: no answer while it is
	// there, nor across its going (its paths' identities are the direct peer's).
	s := NewStore()
	mp := Peer{Router: peers[0], Address: peers[1]}
	s.Up(mp, PeerInfo{Address: peers[1]})
	s.updateNow(mp, &validator.Attributes{Peer: peers[1]}, []NLRI{{Prefix: netip.MustParsePrefix("10.0.0.0/24")}},
		nil)
	if _, _, _, ok := s.Changes(0); ok {
		t.Error("Changes answered for a store with a BMP-monitored peer")
	}
	before := s.Version()
	s.Down(mp, "down", 0)
	if _, _, _, ok := s.Changes(before); ok {
		t.Error("Changes answered across a BMP-monitored peer's going")
	}
}

// randomNLRI returns up to three paths of a few IPv4 and IPv6 prefixes, with
// ADD-PATH IDs 0 and 1, repeats possible.
func randomNLRI(r *rand.Rand) []NLRI {
	prefixes := []string{"10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24", "fd00::/64", "fd00:1::/64"}
	var out []NLRI
	for range r.IntN(4) {
		out = append(out, NLRI{Prefix: netip.MustParsePrefix(prefixes[r.IntN(len(prefixes))]), PathID: uint32(r.IntN(2))})
	}
	return out
}

// table returns the store's paths by identity, and its version.
func table(s *Store) (map[string]string, uint64) {
	rs, v := s.Routes()
	m := map[string]string{}
	for _, r := range rs {
		m[fmt.Sprintf("%s %s #%d", r.Peer, r.Prefix, r.PathID)] = describe(r)
	}
	return m, v
}

func describe(r validator.Route) string { return fmt.Sprintf("%v stale=%v", r.ASPath, r.Stale) }
