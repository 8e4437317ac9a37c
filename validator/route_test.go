package validator

import (
	"net/netip"
	"testing"
)

// TestRouteAttributesShared: routes share their attributes; Unshare gives a
// route its own before a change, ShareAttributes joins equal ones, and a
// route without attributes reads as having none.
func TestRouteAttributesShared(t *testing.T) {
	peer, other := netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.3")
	set := &Attributes{Peer: peer, NextHop: peer, ASPath: []uint32{65010}}
	a := Route{Prefix: netip.MustParsePrefix("10.0.0.0/24"), Attributes: set}
	b := a
	b.Unshare().ASPath[0] = 65011
	if set.ASPath[0] != 65010 || b.ASPath[0] != 65011 || a.Attributes != set {
		t.Errorf("Unshare changed the shared set: %v, %v", set.ASPath, b.ASPath)
	}

	equal := func(p netip.Addr) *Attributes { return &Attributes{Peer: p, NextHop: p, ASPath: []uint32{65010}} }
	rs := []Route{{Attributes: equal(peer)}, {Attributes: equal(other)}, {Attributes: equal(peer)}, {},
		{Attributes: equal(other)}, {Attributes: &Attributes{Peer: peer}}}
	ShareAttributes(rs)
	if rs[0].Attributes != rs[2].Attributes || rs[1].Attributes != rs[4].Attributes ||
		rs[0].Attributes == rs[1].Attributes || rs[5].Attributes == rs[0].Attributes || rs[3].Attributes != nil {
		t.Errorf("ShareAttributes: %p %p %p %p %p %p", rs[0].Attributes, rs[1].Attributes, rs[2].Attributes,
			rs[3].Attributes, rs[4].Attributes, rs[5].Attributes)
	}

	if got, want := b.String(), "10.0.0.0/24 via next hop 127.0.0.2, AS path 65011"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}

	bare := Route{Prefix: netip.MustParsePrefix("10.0.1.0/24")}
	if got := bare.Via(); got != "from an unknown origin" {
		t.Errorf("Via of a route without attributes: %q", got)
	}
	c := &Cluster{}
	if res := Validate(c, []Route{bare}, PolicyView{}, Options{}); res.Summary.Routes != 1 {
		t.Errorf("Validate of a route without attributes: %+v", res.Summary)
	}
	in := []Route{bare}
	Validate(c, in, PolicyView{}, Options{})
	if in[0].Attributes != nil {
		t.Errorf("Validate filled the caller's route")
	}
	e := NewEngine(c, nil, PolicyView{}, Options{})
	e.AddRoute(bare)
	if rs := e.Routes(); len(rs) != 1 || rs[0].Attributes == nil {
		t.Errorf("engine holds %v, want the route with empty attributes", rs)
	}
	// Looked up by identity (prefix, peer, path ID) before being filled.
	e.AddRoute(bare)
	e.Sync([]Route{bare, {Prefix: netip.MustParsePrefix("10.0.2.0/24")}})
	e.WithdrawRoute(bare)
	if rs := e.Routes(); len(rs) != 1 || rs[0].Prefix.String() != "10.0.2.0/24" {
		t.Errorf("engine holds %v after the withdrawal, want 10.0.2.0/24 only", rs)
	}
}
