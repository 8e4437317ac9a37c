package rib

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/validator"
)

// TestStoreVersionAndFreshRoutes checks the validation loop's snapshot API:
// Version changes with every change of the paths and equals what Routes
// returns, and FreshRoutes hands out a new slice on every call.
func TestStoreVersionAndFreshRoutes(t *testing.T) {
	s := NewStore()
	peer := netip.MustParseAddr("127.0.0.2")
	r := validator.Route{Prefix: netip.MustParsePrefix("10.0.0.0/28"),
		Attributes: &validator.Attributes{NextHop: netip.MustParseAddr("10.1.0.1"), Peer: peer}}
	v0 := s.Version()
	s.UpdateRoutes(peer, []validator.Route{r}, nil)
	v1 := s.Version()
	if v1 == v0 {
		t.Fatalf("version %d did not change with an announcement", v1)
	}
	a, va := s.FreshRoutes()
	b, vb := s.FreshRoutes()
	if va != v1 || vb != v1 || len(a) != 1 || len(b) != 1 {
		t.Fatalf("FreshRoutes: %d routes at version %d, %d at %d; want 1 at %d", len(a), va, len(b), vb, v1)
	}
	a[0].PathID = 9
	if b[0].PathID != r.PathID {
		t.Fatalf("two FreshRoutes calls share their slice")
	}
	s.UpdateRoutes(peer, nil, []validator.Route{r})
	if v2 := s.Version(); v2 == v1 {
		t.Fatalf("version %d did not change with a withdrawal", v2)
	}
	if _, v := s.Routes(); v != s.Version() {
		t.Fatalf("Routes returns version %d, Version %d", v, s.Version())
	}
}

// TestStoreRoutesInPrefixOrder: Routes lists paths by prefix (IPv4 before
// IPv6, a shorter prefix before a longer one at the same address), then peer
// (direct before BMP-monitored), then ADD-PATH ID, whatever order they came in.
func TestStoreRoutesInPrefixOrder(t *testing.T) {
	a, b := netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.3")
	tor := Peer{Router: netip.MustParseAddr("10.0.0.1"), Address: a}
	nlri := func(p string, id uint32) NLRI { return NLRI{Prefix: netip.MustParsePrefix(p), PathID: id} }
	s := NewStore()
	s.updateNow(Direct(b), &validator.Attributes{Peer: b}, []NLRI{nlri("fd00::/64", 0), nlri("10.0.1.0/24", 0),
		nlri("10.0.0.0/24", 2), nlri("10.0.0.0/24", 1)}, nil)
	s.updateNow(Direct(a), &validator.Attributes{Peer: a}, []NLRI{nlri("10.0.1.0/24", 0), nlri("10.0.0.0/16", 0),
		nlri("10.0.0.0/24", 0), nlri("9.0.0.0/8", 0)}, nil)
	s.Up(tor, PeerInfo{Address: a, BMP: &BMPInfo{Router: tor.Router}})
	s.updateNow(tor, &validator.Attributes{Peer: a, RouterID: tor.Router}, []NLRI{nlri("10.0.1.0/24", 0)}, nil)
	want := []string{"9.0.0.0/8 127.0.0.2 #0", "10.0.0.0/16 127.0.0.2 #0", "10.0.0.0/24 127.0.0.2 #0",
		"10.0.0.0/24 127.0.0.3 #1", "10.0.0.0/24 127.0.0.3 #2", "10.0.1.0/24 127.0.0.2 #0",
		"10.0.1.0/24 127.0.0.2 #0 bmp", "10.0.1.0/24 127.0.0.3 #0", "fd00::/64 127.0.0.3 #0"}
	for try := range 3 { // map order differs between calls
		rs, _ := s.Routes()
		var got []string
		for _, r := range rs {
			g := fmt.Sprintf("%s %s #%d", r.Prefix, r.Peer, r.PathID)
			if r.RouterID.IsValid() {
				g += " bmp"
			}
			got = append(got, g)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("call %d: Routes in order\n%s\nwant\n%s", try, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
