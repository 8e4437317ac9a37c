package validator

import (
	"net/netip"
	"testing"
)

// TestMarkPostPolicy: check marks the ToR's table (--tor-routes) as after its
// policy, as run marks a BMP post-policy view, without touching the attribute
// sets the node-side dumps may share, and keeping shared sets shared.
func TestMarkPostPolicy(t *testing.T) {
	shared := &Attributes{Communities: []string{"65000:666"}}
	already := &Attributes{PostPolicy: true}
	routes := []Route{
		{Prefix: netip.MustParsePrefix("10.0.1.0/24"), Attributes: shared},
		{Prefix: netip.MustParsePrefix("10.0.2.0/24"), Attributes: shared},
		{Prefix: netip.MustParsePrefix("10.0.3.0/24"), Attributes: already},
		{Prefix: netip.MustParsePrefix("10.0.4.0/24")},
	}
	MarkPostPolicy(routes)
	for i, r := range routes[:3] {
		if !r.Attributes.PostPolicy {
			t.Errorf("route %d (%s) not marked post-policy", i, r.Prefix)
		}
	}
	if shared.PostPolicy {
		t.Error("the caller's shared attribute set was changed in place")
	}
	if routes[0].Attributes != routes[1].Attributes {
		t.Error("two routes sharing one set got two copies")
	}
	if routes[2].Attributes != already {
		t.Error("an already marked set was copied")
	}
	if routes[3].Attributes != nil {
		t.Error("a route without attributes got some")
	}
}
