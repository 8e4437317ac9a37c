package validator

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
)

// TestEngineSyncRebuild drives Sync through large deltas (rebuilt in one full
// validation) and small ones (applied route by route), owned and copied, and
// checks after each that the engine holds what NewEngine would hold, that its
// result is Validate's, and that the changes add up to its findings.
func TestEngineSyncRebuild(t *testing.T) {
	c, rs := syntheticCluster(200, 1000)
	flapped := slices.Clone(rs)
	for i := 0; i < len(flapped); i += 2 {
		flapped[i].Unshare().NextHop = netip.AddrFrom4([4]byte{198, 18, 0, byte(i)})
	}
	half := slices.Clone(rs[:len(rs)/2])
	dup := append(slices.Clone(rs), rs[0], rs[1]) // repeated identities: the later wins
	dup[len(dup)-1].Unshare().NextHop = netip.MustParseAddr("198.18.1.1")
	one := slices.Clone(rs)
	one[7].Unshare().NextHop = netip.MustParseAddr("198.18.2.2")
	steps := []struct {
		name    string
		routes  []Route
		rebuild bool
	}{
		{"the initial table", rs, true},
		{"every other next hop changed", flapped, true},
		{"half withdrawn", half, true},
		{"back, with repeated identities", dup, true},
		{"one route changed", one, false},
		{"everything withdrawn", nil, true},
	}
	for _, owned := range []bool{false, true} {
		e := NewEngine(c, nil, PolicyView{}, Options{})
		fs := e.Findings()
		for _, st := range steps {
			label := fmt.Sprintf("owned %v: %s", owned, st.name)
			held := len(e.Routes())
			events := len(st.routes) + held // an upper bound, enough to tell the paths apart
			if got := bigDelta(events, held, len(st.routes)); st.rebuild && !got {
				t.Fatalf("%s: not a rebuild", label)
			}
			var ch Change
			if owned {
				ch = e.SyncOwned(slices.Clone(st.routes))
			} else {
				ch = e.Sync(st.routes)
			}
			want := NewEngine(c, st.routes, PolicyView{}, Options{})
			if !sameRouteSet(e.Routes(), want.Routes()) {
				t.Fatalf("%s: the engine holds %d routes, want %d", label, len(e.Routes()), len(want.Routes()))
			}
			sameResult(t, label, e.Result(), Validate(c, e.Routes(), PolicyView{}, Options{}))
			sameResult(t, label+" (against a new engine)", e.Result(), want.Result())
			if fs = applyChange(t, fs, ch); !slices.Equal(fs, e.Findings()) {
				t.Fatalf("%s: the changes do not add up to the findings", label)
			}
			// A small event after a rebuild is still applied incrementally and right.
			ch = e.WithdrawRoute(rs[3])
			sameResult(t, label+", then a withdrawal", e.Result(), Validate(c, e.Routes(), PolicyView{}, Options{}))
			if fs = applyChange(t, fs, ch); !slices.Equal(fs, e.Findings()) {
				t.Fatalf("%s, then a withdrawal: the changes do not add up to the findings", label)
			}
		}
	}
}

// TestNewEngineOwnedFoldsDuplicates checks that an engine built over a
// handed-over slice holds what NewEngine holds for the same routes, small and
// large (a large table's identities are indexed beside its snapshot), and
// that a repeated identity keeps the later route.
func TestNewEngineOwnedFoldsDuplicates(t *testing.T) {
	for _, size := range []struct{ nodes, routes int }{{50, 300}, {2000, 30_000}} {
		t.Run(fmt.Sprintf("%d routes", size.routes), func(t *testing.T) {
			c, rs := syntheticCluster(size.nodes, size.routes)
			in := append(slices.Clone(rs), rs[5], rs[9])
			in[len(in)-1].Unshare().NextHop = netip.MustParseAddr("198.18.3.3")
			want := NewEngine(c, in, PolicyView{}, Options{})
			got := NewEngineOwned(c, slices.Clone(in), PolicyView{}, Options{})
			if !slices.EqualFunc(got.Routes(), want.Routes(), func(a, b Route) bool { return sameRoute(&a, &b) }) {
				t.Fatalf("owned engine holds %d routes, NewEngine %d, or in another order", len(got.Routes()),
					len(want.Routes()))
			}
			if n, r := len(got.Routes()), got.Routes()[9]; n != len(rs) || r.NextHop.String() != "198.18.3.3" {
				t.Fatalf("holds %d routes (want %d), route 9 via %s (want the later 198.18.3.3)", n, len(rs), r.NextHop)
			}
			sameResult(t, "owned", got.Result(), want.Result())
			sameResult(t, "validate", got.Result(), Validate(c, got.Routes(), PolicyView{}, Options{}))
		})
	}
}

func TestBigDelta(t *testing.T) {
	for _, tc := range []struct {
		events, held, routes int
		want                 bool
	}{
		{1, 1_000_000, 1_000_000, false},
		{255, 0, 255, false}, // small tables stay incremental
		{1_000_000, 0, 1_000_000, true},
		{100_000, 1_000_000, 1_000_000, false},
		{250_000, 1_000_000, 1_000_000, true},
		{1_000_000, 1_000_000, 0, true},
	} {
		if got := bigDelta(tc.events, tc.held, tc.routes); got != tc.want {
			t.Errorf("bigDelta(%d, %d, %d) = %v, want %v", tc.events, tc.held, tc.routes, got, tc.want)
		}
	}
}
