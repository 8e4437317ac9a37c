package rib

import (
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// TestStoreViews: a monitored peer's pre- and post-policy views are held
// apart; the rules get the post-policy view; PolicyDrops lists what is only
// pre-policy, since when, with a version that moves only with the set.
func TestStoreViews(t *testing.T) {
	s := NewStore()
	now := time.Date(2026, 11, 25, 17, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	tor, node := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.1.12")
	peer := Peer{Router: tor, Address: node}
	pre, post := withView(peer, ViewPrePolicy), withView(peer, ViewPostPolicy)
	attrs := &validator.Attributes{Peer: node, NextHop: netip.MustParseAddr("10.0.0.12"), PeerASN: 65010}
	nlri := func(ps ...string) []NLRI {
		var out []NLRI
		for _, p := range ps {
			out = append(out, NLRI{Prefix: netip.MustParsePrefix(p)})
		}
		return out
	}
	prefixes := func(rs []validator.Route) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Prefix.String())
		}
		return out
	}
	s.Up(peer, PeerInfo{Address: node, ASN: 65010})
	s.SetView(peer, "tor1", ViewPrePolicy)
	s.updateNow(pre, attrs, nlri("10.244.2.0/24", "10.244.3.0/24"), nil)
	if rs, _ := s.Routes(); !slices.Equal(prefixes(rs), []string{"10.244.2.0/24", "10.244.3.0/24"}) {
		t.Errorf("pre-policy only: rules get %v, want the pre-policy view", prefixes(rs))
	}
	if d, _ := s.PolicyDrops(); len(d) != 0 {
		t.Errorf("no post-policy view yet: drops %v, want none", d)
	}

	s.SetView(peer, "tor1", ViewPostPolicy)
	s.updateNow(post, attrs, nlri("10.244.3.0/24"), nil)
	if rs, _ := s.Routes(); !slices.Equal(prefixes(rs), []string{"10.244.3.0/24"}) {
		t.Errorf("with post-policy: rules get %v, want the post-policy view", prefixes(rs))
	}
	drops, v1 := s.PolicyDrops()
	if len(drops) != 1 || drops[0].Route.Prefix.String() != "10.244.2.0/24" || !drops[0].Since.Equal(now) ||
		drops[0].Router != "127.0.0.1" {
		t.Fatalf("drops %+v, want 10.244.2.0/24 on 127.0.0.1 since %s", drops, now)
	}
	now = now.Add(time.Minute)
	if d, v2 := s.PolicyDrops(); v2 != v1 || !d[0].Since.Equal(drops[0].Since) {
		t.Errorf("unchanged drops: version %d → %d, since %s → %s", v1, v2, drops[0].Since, d[0].Since)
	}
	views := map[string]bool{}
	for _, p := range s.MonitoredPeers() {
		views[p.BMP.View] = p.BMP.Judged
	}
	if len(views) != 2 || views[ViewPrePolicy] || !views[ViewPostPolicy] {
		t.Errorf("monitored peers' views (judged): %v, want pre-policy (not judged) and post-policy (judged)", views)
	}
	if got := s.ViewPaths(ViewPrePolicy); len(got) != 2 || got[0].Router != tor {
		t.Errorf("pre-policy view paths: %+v", got)
	}

	// The policy lets it through: the drop resolves, the version moves.
	s.updateNow(post, attrs, nlri("10.244.2.0/24"), nil)
	if d, v3 := s.PolicyDrops(); len(d) != 0 || v3 == v1 {
		t.Errorf("after the fix: drops %v, version %d (was %d)", d, v3, v1)
	}
	s.Down(peer, "down", 0)
	if rs, _ := s.Routes(); len(rs) != 0 || len(s.MonitoredPeers()) != 0 {
		t.Errorf("after Peer Down: %d routes, peers %+v", len(rs), s.MonitoredPeers())
	}
}
