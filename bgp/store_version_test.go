package bgp

import (
	"net/netip"
	"testing"

	"github.com/routewarden/routewarden/validator"
)

// TestStoreVersionAndFreshRoutes checks the validation loop's snapshot API:
// Version changes with every change of the paths and equals what Routes
// returns, and FreshRoutes hands out a new slice on every call.
func TestStoreVersionAndFreshRoutes(t *testing.T) {
	s := NewStore()
	peer := netip.MustParseAddr("127.0.0.2")
	r := validator.Route{Prefix: netip.MustParsePrefix("10.0.0.0/28"), NextHop: netip.MustParseAddr("10.1.0.1"),
		Peer: peer}
	v0 := s.Version()
	s.Update(peer, []validator.Route{r}, nil)
	v1 := s.Version()
	if v1 == v0 {
		t.Fatalf("version %d did not change with an announcement", v1)
	}
	a, va := s.FreshRoutes()
	b, vb := s.FreshRoutes()
	if va != v1 || vb != v1 || len(a) != 1 || len(b) != 1 {
		t.Fatalf("FreshRoutes: %d routes at version %d, %d at %d; want 1 at %d", len(a), va, len(b), vb, v1)
	}
	a[0].NextHop = netip.MustParseAddr("10.9.9.9")
	if b[0].NextHop != r.NextHop {
		t.Fatalf("two FreshRoutes calls share their slice")
	}
	s.Update(peer, nil, []validator.Route{r})
	if v2 := s.Version(); v2 == v1 {
		t.Fatalf("version %d did not change with a withdrawal", v2)
	}
	if _, v := s.Routes(); v != s.Version() {
		t.Fatalf("Routes returns version %d, Version %d", v, s.Version())
	}
}
