package rib

import (
	"fmt"
	"net/netip"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

func TestStoreGracefulRestart(t *testing.T) {
	peer := netip.MustParseAddr("127.0.1.11")
	v4 := validator.Route{Prefix: netip.MustParsePrefix("10.244.1.0/24"), Attributes: &validator.Attributes{Peer: peer}}
	v6 := validator.Route{Prefix: netip.MustParsePrefix("fd00:10:244:1::/64"),
		Attributes: &validator.Attributes{Peer: peer}}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name      string
		keep      time.Duration
		then      func(s *Store)
		wantRoute int
		wantStale int
	}{
		{name: "no graceful restart: dropped at once", wantRoute: 0},
		{name: "graceful restart: kept as stale", keep: 10 * time.Second, wantRoute: 2, wantStale: 2},
		{name: "restart time runs out", keep: 10 * time.Second,
			then: func(s *Store) { s.ExpireStale(now.Add(11 * time.Second)) }},
		{name: "not yet run out", keep: 10 * time.Second, wantRoute: 2, wantStale: 2,
			then: func(s *Store) { s.ExpireStale(now.Add(9 * time.Second)) }},
		{name: "peer back, re-announces IPv4, End-of-RIB for both", keep: 10 * time.Second, wantRoute: 1,
			then: func(s *Store) {
				s.Up(Direct(peer), PeerInfo{Address: peer})
				s.UpdateRoutes(peer, []validator.Route{v4}, nil)
				s.EndOfRIB(Direct(peer), "ipv4-unicast", false)
				s.EndOfRIB(Direct(peer), "ipv6-unicast", true)
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore()
			s.now = func() time.Time { return now }
			s.Up(Direct(peer), PeerInfo{Address: peer})
			s.UpdateRoutes(peer, []validator.Route{v4, v6}, nil)
			s.Down(Direct(peer), "idle", tc.keep)
			if tc.then != nil {
				tc.then(s)
			}
			rs, _ := s.Routes()
			stale := 0
			for _, r := range rs {
				if r.Stale {
					stale++
				}
			}
			if len(rs) != tc.wantRoute || stale != tc.wantStale {
				t.Errorf("routes %d (stale %d), want %d (stale %d)", len(rs), stale, tc.wantRoute, tc.wantStale)
			}
		})
	}
}

// TestStoreEndOfRIBPerFamily: after a graceful restart, a family's End-of-RIB
// drops that family's paths still stale (RFC 4724 §4.2) and no other; stale
// paths of a family whose End-of-RIB has not come expire at the restart time,
// which stays set while any stale path is left.
func TestStoreEndOfRIBPerFamily(t *testing.T) {
	peer := netip.MustParseAddr("127.0.1.11")
	route := func(p string) validator.Route {
		return validator.Route{Prefix: netip.MustParsePrefix(p), Attributes: &validator.Attributes{Peer: peer}}
	}
	v4a, v4b := route("10.244.1.0/24"), route("10.244.2.0/24")
	v6a, v6b := route("fd00:10:244:1::/64"), route("fd00:10:244:2::/64")
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	deadline := now.Add(10 * time.Second)
	back := func(s *Store, announced ...validator.Route) {
		s.Up(Direct(peer), PeerInfo{Address: peer})
		s.UpdateRoutes(peer, announced, nil)
	}
	eor4 := func(s *Store) { s.EndOfRIB(Direct(peer), "ipv4-unicast", false) }
	eor6 := func(s *Store) { s.EndOfRIB(Direct(peer), "ipv6-unicast", true) }
	cases := []struct {
		name      string
		keep      time.Duration // 0: the session never went down
		then      func(s *Store)
		want      []string // prefix, " stale" when stale
		wantUntil time.Time
	}{
		{name: "IPv4 End-of-RIB: IPv4's stale paths go, IPv6's stay with the deadline", keep: 10 * time.Second,
			then: func(s *Store) { back(s, v4a); eor4(s) },
			want: []string{"10.244.1.0/24", "fd00:10:244:1::/64 stale", "fd00:10:244:2::/64 stale"}, wantUntil: deadline},
		{name: "IPv6 End-of-RIB first: IPv4's stale paths stay", keep: 10 * time.Second,
			then: func(s *Store) { back(s, v6b); eor6(s) },
			want: []string{"10.244.1.0/24 stale", "10.244.2.0/24 stale", "fd00:10:244:2::/64"}, wantUntil: deadline},
		{name: "no IPv6 End-of-RIB: its stale paths expire at the restart time", keep: 10 * time.Second,
			then: func(s *Store) { back(s, v4a); eor4(s); s.ExpireStale(deadline) },
			want: []string{"10.244.1.0/24"}},
		{name: "no IPv6 End-of-RIB, restart time not run out", keep: 10 * time.Second,
			then: func(s *Store) { back(s, v4a); eor4(s); s.ExpireStale(deadline.Add(-time.Second)) },
			want: []string{"10.244.1.0/24", "fd00:10:244:1::/64 stale", "fd00:10:244:2::/64 stale"}, wantUntil: deadline},
		{name: "back, no End-of-RIB yet: the new session keeps the deadline", keep: 10 * time.Second,
			then:      func(s *Store) { back(s, v4a) },
			want:      []string{"10.244.1.0/24", "10.244.2.0/24 stale", "fd00:10:244:1::/64 stale", "fd00:10:244:2::/64 stale"},
			wantUntil: deadline},
		{name: "back, no End-of-RIB at all: every stale path expires", keep: 10 * time.Second,
			then: func(s *Store) { back(s, v4a); s.ExpireStale(deadline) },
			want: []string{"10.244.1.0/24"}},
		{name: "IPv4 End-of-RIB twice: IPv6's deadline kept", keep: 10 * time.Second,
			then: func(s *Store) { back(s, v4a); eor4(s); eor4(s) },
			want: []string{"10.244.1.0/24", "fd00:10:244:1::/64 stale", "fd00:10:244:2::/64 stale"}, wantUntil: deadline},
		{name: "End-of-RIB for both: nothing stale, no deadline", keep: 10 * time.Second,
			then: func(s *Store) { back(s, v4a, v6b); eor4(s); eor6(s) },
			want: []string{"10.244.1.0/24", "fd00:10:244:2::/64"}},
		{name: "End-of-RIB for both, nothing re-announced", keep: 10 * time.Second,
			then: func(s *Store) { back(s); eor6(s); eor4(s) }},
		{name: "no restart: End-of-RIB drops no fresh path", then: eor4,
			want: []string{"10.244.1.0/24", "10.244.2.0/24", "fd00:10:244:1::/64", "fd00:10:244:2::/64"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore()
			s.now = func() time.Time { return now }
			s.Up(Direct(peer), PeerInfo{Address: peer})
			s.UpdateRoutes(peer, []validator.Route{v4a, v4b, v6a, v6b}, nil)
			if tc.keep > 0 {
				s.Down(Direct(peer), "idle", tc.keep)
			}
			tc.then(s)
			rs, _ := s.Routes()
			got := sortedBy(rs, func(r validator.Route) string {
				if r.Stale {
					return r.Prefix.String() + " stale"
				}
				return r.Prefix.String()
			})
			if !slices.Equal(got, tc.want) && len(got)+len(tc.want) > 0 {
				t.Errorf("routes %q, want %q", got, tc.want)
			}
			if p := s.Peers(); len(p) != 1 || !p[0].StaleUntil.Equal(tc.wantUntil) || p[0].Routes != len(tc.want) {
				t.Errorf("peers %+v, want StaleUntil %v and %d routes", p, tc.wantUntil, len(tc.want))
			}
			if next := s.ExpireStale(now); !next.Equal(tc.wantUntil) {
				t.Errorf("next expiry %v, want %v", next, tc.wantUntil)
			}
		})
	}
}

// TestStoreRoundTrip: what goes in comes out unchanged, whatever the prefix
// (IPv4, IPv6, IPv4-mapped, unmasked, invalid) and however many paths share
// their attributes; replaced and withdrawn paths free their attribute sets.
func TestStoreRoundTrip(t *testing.T) {
	peer := netip.MustParseAddr("127.0.1.11")
	base := validator.Attributes{Peer: peer, PeerASN: 65010, RouterID: peer, NextHop: netip.MustParseAddr("10.0.0.11"),
		ASPath: []uint32{65010}, Communities: []string{"65010:1"}}
	with := func(p string, id uint32, change func(*validator.Attributes)) validator.Route {
		a := base
		if change != nil {
			change(&a)
		}
		r := validator.Route{Attributes: &a, PathID: id}
		if p != "" {
			r.Prefix = netip.MustParsePrefix(p)
		}
		return r
	}
	other := func(a *validator.Attributes) {
		a.NextHop, a.ASPath = netip.MustParseAddr("10.0.0.12"), []uint32{65010, 65011}
	}
	large := func(a *validator.Attributes) { a.LargeCommunities = []string{"65010:1:1"} }
	pref := func(p uint32) func(*validator.Attributes) {
		return func(a *validator.Attributes) { a.LocalPref, a.HasLocalPref = p, true }
	}
	cases := []struct {
		name      string
		announced []validator.Route
		withdrawn []validator.Route
		want      []validator.Route
		wantSets  int
	}{
		{name: "families", announced: []validator.Route{with("10.244.1.0/24", 0, nil), with("fd00:10:244:1::/64", 0, nil),
			with("::ffff:10.244.2.0/120", 0, nil), with("10.244.3.7/24", 0, nil), with("", 0, nil)},
			want: []validator.Route{with("10.244.1.0/24", 0, nil), with("fd00:10:244:1::/64", 0, nil),
				with("::ffff:10.244.2.0/120", 0, nil), with("10.244.3.7/24", 0, nil), with("", 0, nil)}, wantSets: 1},
		{name: "ADD-PATH: two paths, two attribute sets",
			announced: []validator.Route{with("10.244.1.0/24", 1, nil), with("10.244.1.0/24", 2, other)},
			want:      []validator.Route{with("10.244.1.0/24", 1, nil), with("10.244.1.0/24", 2, other)}, wantSets: 2},
		{name: "replaced: the old set is freed",
			announced: []validator.Route{with("10.244.1.0/24", 0, nil), with("10.244.1.0/24", 0, other)},
			want:      []validator.Route{with("10.244.1.0/24", 0, other)}, wantSets: 1},
		{name: "large communities and local preference: sets of their own, shared",
			announced: []validator.Route{with("10.244.1.0/24", 0, large), with("10.244.2.0/24", 0, large),
				with("10.244.3.0/24", 0, pref(100)), with("10.244.4.0/24", 0, pref(0)), with("10.244.5.0/24", 0, nil)},
			want: []validator.Route{with("10.244.1.0/24", 0, large), with("10.244.2.0/24", 0, large),
				with("10.244.3.0/24", 0, pref(100)), with("10.244.4.0/24", 0, pref(0)), with("10.244.5.0/24", 0, nil)},
			wantSets: 4},
		{name: "communities moved to large ones: another set", announced: []validator.Route{
			with("10.244.1.0/24", 0, func(a *validator.Attributes) { a.Communities = []string{"65010:1", "1:2"} }),
			with("10.244.2.0/24", 0, func(a *validator.Attributes) { a.LargeCommunities = []string{"1:2"} })},
			want: []validator.Route{
				with("10.244.1.0/24", 0, func(a *validator.Attributes) { a.Communities = []string{"65010:1", "1:2"} }),
				with("10.244.2.0/24", 0, func(a *validator.Attributes) { a.LargeCommunities = []string{"1:2"} })},
			wantSets: 2},
		{name: "withdrawn", announced: []validator.Route{with("10.244.1.0/24", 0, nil), with("10.244.2.0/24", 0, other)},
			withdrawn: []validator.Route{with("10.244.2.0/24", 0, nil)},
			want:      []validator.Route{with("10.244.1.0/24", 0, nil)}, wantSets: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore()
			for _, r := range tc.announced {
				s.UpdateRoutes(peer, []validator.Route{r}, nil)
			}
			s.UpdateRoutes(peer, nil, tc.withdrawn)
			got, _ := s.Routes()
			key := func(r validator.Route) string {
				return fmt.Sprintf("%v #%d %v %+v", r.Prefix, r.PathID, r.Stale, *r.Attributes)
			}
			if !slices.Equal(sortedBy(got, key), sortedBy(tc.want, key)) {
				t.Errorf("routes\n%v\nwant\n%v", got, tc.want)
			}
			if n := len(s.attrs.byKey); n != tc.wantSets {
				t.Errorf("%d attribute sets held, want %d", n, tc.wantSets)
			}
			s.Down(Direct(peer), "idle", 0)
			if n := len(s.attrs.byKey); n != 0 {
				t.Errorf("%d attribute sets held after the peer went down, want 0", n)
			}
		})
	}
}

func sortedBy[T any](s []T, key func(T) string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = key(v)
	}
	slices.Sort(out)
	return out
}

// TestStoreMonitoredPeers: BMP-monitored peers are held apart from direct
// peers (the same address seen by two ToRs is two peers), their routes are in
// Routes, and a peer down drops only that peer's.
func TestStoreMonitoredPeers(t *testing.T) {
	node := netip.MustParseAddr("10.0.0.11")
	tor1 := Peer{Router: netip.MustParseAddr("10.0.0.1"), Address: node}
	tor2 := Peer{Router: netip.MustParseAddr("10.0.0.2"), Address: node}
	attrs := &validator.Attributes{Peer: node, NextHop: node, PeerASN: 65010}
	s := NewStore()
	s.UpdateRoutes(node, []validator.Route{{Prefix: netip.MustParsePrefix("10.244.0.0/24"),
		Attributes: &validator.Attributes{Peer: node}}}, nil)
	for _, p := range []Peer{tor1, tor2} {
		s.Up(p, PeerInfo{Address: node, BMP: &BMPInfo{Router: p.Router}})
		s.updateNow(p, attrs, []NLRI{{Prefix: netip.MustParsePrefix("10.244.1.0/24")},
			{Prefix: netip.MustParsePrefix("10.244.2.0/24")}}, nil)
	}
	if rs, _ := s.Routes(); len(rs) != 5 {
		t.Fatalf("%d routes, want 5", len(rs))
	}
	if ps := s.Peers(); len(ps) != 1 || ps[0].BMP != nil {
		t.Errorf("direct peers %+v, want the one direct peer", ps)
	}
	if ps := s.MonitoredPeers(); len(ps) != 2 || ps[0].Routes != 2 || ps[1].BMP.Router != tor2.Router {
		t.Errorf("monitored peers %+v, want two with 2 routes each", ps)
	}
	s.Down(tor1, "down", 0)
	if rs, _ := s.Routes(); len(rs) != 3 {
		t.Errorf("%d routes after tor1's peer down, want 3", len(rs))
	}
	if ps := s.MonitoredPeers(); len(ps) != 1 || ps[0].BMP.Router != tor2.Router {
		t.Errorf("monitored peers %+v, want tor2's only", ps)
	}
}

// TestAttrKeyCoversRoute: the interning key must cover every attribute, and
// a path must keep every field of validator.Route but the attributes; a new
// field needs a line in attrKey or a place in the path tables.
func TestAttrKeyCoversRoute(t *testing.T) {
	for _, tc := range []struct {
		typ  reflect.Type
		want []string
		by   string
	}{
		{reflect.TypeFor[validator.Attributes](), []string{"NextHop", "Peer", "PeerASN", "RouterID", "Router", "Local", "ASPath",
			"Communities", "LargeCommunities", "LocalPref", "HasLocalPref", "PostPolicy", "Relayed", "Unseen"},
			"attrKey (attrs.go)"},
		{reflect.TypeFor[validator.Route](), []string{"Prefix", "Attributes", "Stale", "PathID"},
			"the path tables (paths.go)"},
	} {
		var fields []string
		for f := range tc.typ.Fields() {
			fields = append(fields, f.Name)
		}
		if !slices.Equal(fields, tc.want) {
			t.Errorf("%v has fields %v; %s covers %v: add the new ones", tc.typ, fields, tc.by, tc.want)
		}
	}
}

// BenchmarkStoreHeapPerRoute fills a store through Update (the GoBGP watch
// path) with 100,000 /24s from 100 peers, 1,000 per next hop, and reports the
// heap each route costs.
func BenchmarkStoreHeapPerRoute(b *testing.B) {
	const n = 100_000
	batch := make([]validator.Route, 0, 1000)
	var perRoute float64
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := NewStore()
		for i := 0; i < n; i += 1000 {
			peer := netip.AddrFrom4([4]byte{127, 0, 1, byte(i / 1000)})
			batch = batch[:0]
			for j := i; j < i+1000; j++ {
				a := uint32(j) + 1<<16
				p := netip.PrefixFrom(netip.AddrFrom4([4]byte{byte(a >> 16), byte(a >> 8), byte(a), 0}), 24)
				batch = append(batch, validator.Route{Prefix: p, Attributes: &validator.Attributes{Peer: peer,
					RouterID: peer, PeerASN: 65010, NextHop: netip.AddrFrom4([4]byte{10, 0, byte(i / 1000), 1}),
					ASPath: []uint32{65010}, Communities: []string{"65010:100"}}})
			}
			s.UpdateRoutes(peer, batch, nil)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perRoute = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
		runtime.KeepAlive(s)
	}
	b.ReportMetric(perRoute, "heap-B/route")
}
