package rib

import (
	"net/netip"
	"testing"

	"github.com/routewarden/routewarden/validator"
)

// TestPostPolicyMark: the attribute sets of a monitored peer's post-policy
// view and of a Loc-RIB carry validator.Attributes.PostPolicy, those of its
// pre-policy view and of a direct peer do not; equal attributes share one set
// within a view, and the mark keeps the views' sets apart.
func TestPostPolicyMark(t *testing.T) {
	s := NewStore()
	tor, node := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.1.12")
	peer := Peer{Router: tor, Address: node}
	locRIB := Peer{Router: tor, Type: peerTypeLocRIB, Address: tor, View: ViewLocRIB}
	attrs := &validator.Attributes{Peer: node, NextHop: netip.MustParseAddr("10.0.0.12"), PeerASN: 65010,
		ASPath: []uint32{65010}, Communities: []string{"65010:100"}}
	nlri := []NLRI{{Prefix: netip.MustParsePrefix("10.244.2.0/24")}, {Prefix: netip.MustParsePrefix("10.244.3.0/24")}}
	for _, p := range []Peer{withView(peer, ViewPrePolicy), withView(peer, ViewPostPolicy), locRIB} {
		s.SetView(p, "tor1", p.View)
		s.updateNow(p, attrs, nlri, nil)
	}
	s.updateNow(Direct(node), attrs, nlri, nil)
	if attrs.PostPolicy {
		t.Fatal("the caller's attributes were marked")
	}
	for _, tc := range []struct {
		view string
		want bool
	}{{ViewPrePolicy, false}, {ViewPostPolicy, true}, {ViewLocRIB, true}} {
		ps := s.ViewPaths(tc.view)
		if len(ps) != 2 || ps[0].Attributes != ps[1].Attributes {
			t.Fatalf("%s: %d paths, shared set %v; want 2 sharing one", tc.view, len(ps), len(ps) == 2)
		}
		if got := ps[0].Attrs().PostPolicy; got != tc.want {
			t.Errorf("%s: PostPolicy %v, want %v", tc.view, got, tc.want)
		}
	}
	if pre, post := s.ViewPaths(ViewPrePolicy), s.ViewPaths(ViewPostPolicy); pre[0].Attributes == post[0].Attributes {
		t.Error("pre- and post-policy paths share an attribute set")
	}
	rs, _ := s.Routes() // the direct peer's, the post-policy view's and the Loc-RIB's
	marked := 0
	for _, r := range rs {
		if r.Attrs().PostPolicy {
			marked++
		}
	}
	if len(rs) != 6 || marked != 4 {
		t.Errorf("rules get %d routes, %d marked post-policy; want 6, 4 (direct peer unmarked)", len(rs), marked)
	}
}
