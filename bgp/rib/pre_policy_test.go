package rib

import (
	"net/netip"
	"testing"

	"github.com/routewarden/routewarden/validator"
)

// TestPrePolicy: the pre-policy paths the rules do not judge (the router
// sends the peer's post-policy view too) are PrePolicy's, with their router;
// a peer sent pre-policy only is judged as a route and is not. The version
// changes when the paths do, not on a call that finds them unchanged.
func TestPrePolicy(t *testing.T) {
	s := NewStore()
	tor := netip.MustParseAddr("127.0.0.1")
	node1, node2 := netip.MustParseAddr("127.0.1.11"), netip.MustParseAddr("127.0.1.12")
	attrs := func(peer netip.Addr, std ...string) *validator.Attributes {
		return &validator.Attributes{Peer: peer, NextHop: peer, ASPath: []uint32{65010}, Communities: std}
	}
	cidr := func(p string) []NLRI { return []NLRI{{Prefix: netip.MustParsePrefix(p)}} }
	both, preOnly := Peer{Router: tor, Address: node1}, Peer{Router: tor, Address: node2}
	for _, p := range []Peer{withView(both, ViewPrePolicy), withView(both, ViewPostPolicy), withView(preOnly, ViewPrePolicy)} {
		s.SetView(p, "tor1", p.View)
	}
	s.updateNow(withView(both, ViewPrePolicy), attrs(node1, "65010:100"), cidr("10.244.1.0/24"), nil)
	s.updateNow(withView(both, ViewPostPolicy), attrs(node1, "65000:666", "65010:100"), cidr("10.244.1.0/24"), nil)
	s.updateNow(withView(preOnly, ViewPrePolicy), attrs(node2, "65010:100"), cidr("10.244.2.0/24"), nil)
	pre, v1 := s.PrePolicy()
	if len(pre) != 1 || pre[0].Prefix.String() != "10.244.1.0/24" || pre[0].Attrs().Router != tor ||
		pre[0].Attrs().PostPolicy || len(pre[0].Attrs().Communities) != 1 {
		t.Fatalf("PrePolicy %v, want node1's pre-policy path from %s", pre, tor)
	}
	if _, v := s.PrePolicy(); v != v1 {
		t.Errorf("version %d after an unchanged call, want %d", v, v1)
	}
	s.updateNow(withView(both, ViewPrePolicy), attrs(node1, "65010:999"), cidr("10.244.1.0/24"), nil)
	if pre, v := s.PrePolicy(); v == v1 || pre[0].Attrs().Communities[0] != "65010:999" {
		t.Errorf("after a change: version %d (was %d), paths %v", v, v1, pre)
	}
}
