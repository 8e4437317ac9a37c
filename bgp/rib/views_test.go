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

// TestPrePolicy: the pre-policy paths the rules do not judge (the router
// sends the peer's post-policy view too) are PrePolicy's, with their router;
// a peer sent pre-policy only is judged as a route and is not. The version
// changes when the paths do, not on a call that finds them unchanged, and
// such a call, or one after a change of a judged view only, does not scan.
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
	scans := s.sent.scans
	if _, v := s.PrePolicy(); v != v1 || s.sent.scans != scans {
		t.Errorf("after an unchanged call: version %d (want %d), %d scans (want %d)", v, v1, s.sent.scans, scans)
	}
	// A path of a view the rules judge (not shadowed) is none of PrePolicy's: no scan.
	s.updateNow(withView(preOnly, ViewPrePolicy), attrs(node2, "65010:200"), cidr("10.244.2.0/24"), nil)
	s.updateNow(withView(both, ViewPostPolicy), attrs(node1, "65000:667"), cidr("10.244.1.0/24"), nil)
	if _, v := s.PrePolicy(); v != v1 || s.sent.scans != scans {
		t.Errorf("after a judged view's change: version %d (want %d), %d scans (want %d)", v, v1, s.sent.scans, scans)
	}
	s.updateNow(withView(both, ViewPrePolicy), attrs(node1, "65010:999"), cidr("10.244.1.0/24"), nil)
	if pre, v := s.PrePolicy(); v == v1 || pre[0].Attrs().Communities[0] != "65010:999" {
		t.Errorf("after a change: version %d (was %d), paths %v", v, v1, pre)
	}
}

// BenchmarkPrePolicyUnchanged: PrePolicy called again without a change, at
// 1M shadowed pre-policy paths, returns the last result without a scan
// (BenchmarkPrePolicyUnchanged/changed is the scan it saves).
//
//	go test ./bgp/rib -run '^$' -bench BenchmarkPrePolicy -benchmem
func BenchmarkPrePolicyUnchanged(b *testing.B) {
	const n = 1_000_000
	s := NewStore()
	tor, node := netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("127.0.1.11")
	p := Peer{Router: tor, Address: node}
	for _, v := range []string{ViewPrePolicy, ViewPostPolicy} {
		s.SetView(withView(p, v), "tor1", v)
	}
	nlris := make([]NLRI, n)
	for i := range nlris {
		nlris[i] = NLRI{Prefix: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 32)}
	}
	s.updateNow(withView(p, ViewPrePolicy), &validator.Attributes{Peer: node, NextHop: node}, nlris, nil)
	if pre, _ := s.PrePolicy(); len(pre) != n {
		b.Fatal(len(pre))
	}
	for _, changed := range []bool{false, true} {
		b.Run(map[bool]string{false: "unchanged", true: "changed"}[changed], func(b *testing.B) {
			for b.Loop() {
				if changed {
					s.mu.Lock()
					s.sent.changes++
					s.mu.Unlock()
				}
				s.PrePolicy()
			}
		})
	}
}
