package rib

import (
	"net/netip"
	"testing"

	"github.com/routewarden/routewarden/validator"
)

// TestPolicyView: the store's policy view carries its drops and pre-policy
// paths, and its version moves when either's version does, and only then
// (moved here from cmd/routewarden's TestWithPolicyDrops, when the view left
// the cluster to travel beside it).
func TestPolicyView(t *testing.T) {
	s := NewStore()
	tor, node := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.1.12")
	peer := Peer{Router: tor, Address: node}
	pre, post := withView(peer, ViewPrePolicy), withView(peer, ViewPostPolicy)
	attrs := func(std ...string) *validator.Attributes {
		return &validator.Attributes{Peer: node, NextHop: node, ASPath: []uint32{65010}, Communities: std}
	}
	cidr := func(p string) []NLRI { return []NLRI{{Prefix: netip.MustParsePrefix(p)}} }

	if pv, _ := s.Policy(); len(pv.Drops) != 0 || len(pv.PrePolicy) != 0 {
		t.Fatalf("empty store: policy view %+v, want the zero view", pv)
	}
	s.Up(peer, PeerInfo{Address: node, ASN: 65010})
	for _, p := range []Peer{pre, post} {
		s.SetView(peer, "tor1", p.View)
	}
	s.updateNow(pre, attrs("65010:100"), cidr("10.244.2.0/24"), nil)
	s.updateNow(post, attrs("65010:100"), cidr("10.244.2.0/24"), nil)
	pv, v1 := s.Policy()
	if len(pv.Drops) != 0 || len(pv.PrePolicy) != 1 {
		t.Fatalf("accepted path: %d drops, %d pre-policy paths, want 0 and 1", len(pv.Drops), len(pv.PrePolicy))
	}
	if _, v := s.Policy(); v != v1 {
		t.Errorf("nothing changed: version %d → %d", v1, v)
	}
	s.updateNow(pre, attrs("65010:100"), cidr("10.244.3.0/24"), nil) // the ToR's policy drops it
	pv, v2 := s.Policy()
	if v2 == v1 || len(pv.Drops) != 1 || pv.Drops[0].Route.Prefix.String() != "10.244.3.0/24" {
		t.Errorf("drops changed: version %d → %d, drops %+v", v1, v2, pv.Drops)
	}
	if _, v := s.Policy(); v != v2 {
		t.Errorf("same drops: version %d → %d", v2, v)
	}
	s.updateNow(pre, attrs("65010:999"), cidr("10.244.2.0/24"), nil) // what the node sent changed
	if pv, v := s.Policy(); v == v2 || pv.PrePolicy[0].Attrs().Communities[0] != "65010:999" {
		t.Errorf("pre-policy paths changed: version %d → %d, paths %v", v2, v, pv.PrePolicy)
	}
}
