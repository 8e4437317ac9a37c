package monitor

import (
	"slices"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// freshRoutes is a versioned route source that hands its routes over, as the
// BGP store does; it counts the copies it hands out.
type freshRoutes struct {
	fakeRoutes
	version uint64
	copies  int
}

func (f *freshRoutes) Version() uint64 { return f.version }
func (f *freshRoutes) Len() int        { return len(f.routes) }
func (f *freshRoutes) FreshRoutes() ([]validator.Route, uint64) {
	f.copies++
	return slices.Clone(f.routes), f.version
}

// TestLoopWithFreshRoutes checks the loop over a FreshRouteSource: nothing is
// validated (no route copied, no finding built) during warm-up, the first
// validation after it sees the whole table, an unchanged version re-uses the
// last result, and a new version is validated.
func TestLoopWithFreshRoutes(t *testing.T) {
	_, cluster := world()
	src := &freshRoutes{fakeRoutes: fakeRoutes{routes: nil}}
	warm := &fakeWarm{}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	rec := &recorder{}
	l := New(src, cluster, warm, Options{Now: func() time.Time { return now }}, rec)
	l.started = now
	steps := []struct {
		name                     string
		routes                   []validator.Route
		version                  uint64
		warm                     bool
		wantCopies, wantFindings int
		wantRoutes               int
		want                     []TransitionKind
	}{
		{name: "warm-up, empty table", version: 1},
		{name: "warm-up, the table arrives", routes: withdrawn(), version: 2},
		{name: "warmed up", routes: withdrawn(), version: 2, warm: true, wantCopies: 1, wantFindings: 1,
			wantRoutes: 1, want: []TransitionKind{Fired}},
		{name: "nothing changed", routes: withdrawn(), version: 2, warm: true, wantCopies: 1, wantFindings: 1,
			wantRoutes: 1},
		{name: "the route comes back", routes: healthy(), version: 3, warm: true, wantCopies: 2, wantRoutes: 2,
			want: []TransitionKind{Resolved}},
	}
	for i, st := range steps {
		now = now.Add(time.Second)
		src.routes, src.version, warm.ok = st.routes, st.version, st.warm
		rec.transitions = nil
		l.runOnce()
		s := l.State()
		var got []TransitionKind
		for _, tr := range rec.transitions {
			got = append(got, tr.Kind)
		}
		if src.copies != st.wantCopies || len(s.Findings) != st.wantFindings || s.Summary.Routes != st.wantRoutes ||
			!slices.Equal(got, st.want) || s.WarmingUp == st.warm {
			t.Fatalf("step %d (%s): %d copies, %d findings, %d routes, transitions %v, warming up %v; want %d, %d, %d, %v",
				i, st.name, src.copies, len(s.Findings), s.Summary.Routes, got, s.WarmingUp, st.wantCopies,
				st.wantFindings, st.wantRoutes, st.want)
		}
	}
}
