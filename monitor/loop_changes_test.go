package monitor

import (
	"reflect"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// changingRoutes is a freshRoutes that can also say what changed: the routes
// of the versions it was given, diffed by identity (peer, prefix, path ID).
type changingRoutes struct {
	freshRoutes
	history map[uint64][]validator.Route
	refuse  bool // Changes says it cannot
	asked   int
}

func (c *changingRoutes) set(routes []validator.Route, version uint64) {
	c.routes, c.version = routes, version
	c.history[version] = routes
}

func (c *changingRoutes) Changes(since uint64) (changed, gone []validator.Route, version uint64, ok bool) {
	c.asked++
	old, known := c.history[since]
	if c.refuse || !known {
		return nil, nil, c.version, false
	}
	id := func(r validator.Route) string { return r.Peer.String() + " " + r.Prefix.String() }
	now := map[string]validator.Route{}
	for _, r := range c.routes {
		now[id(r)] = r
	}
	for _, r := range old {
		if _, held := now[id(r)]; !held {
			gone = append(gone, r)
		}
	}
	was := map[string]validator.Route{}
	for _, r := range old {
		was[id(r)] = r
	}
	for _, r := range c.routes {
		if w, held := was[id(r)]; !held || w.NextHop != r.NextHop {
			changed = append(changed, r)
		}
	}
	return changed, gone, c.version, true
}

// TestLoopCatchesUpFromChanges: after the first validation, a route source
// that says what changed is not copied again while the cluster stays, and the
// result is what a full validation gives; when it cannot say, the loop copies
// the table as before.
func TestLoopCatchesUpFromChanges(t *testing.T) {
	_, cluster := world()
	src := &changingRoutes{history: map[uint64][]validator.Route{}}
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	l := New(src, cluster, &fakeWarm{ok: true}, Options{Now: func() time.Time { return now }})
	steps := []struct {
		name       string
		routes     []validator.Route
		refuse     bool
		wantCopies int
	}{
		{name: "first validation: the whole table", routes: healthy(), wantCopies: 1},
		{name: "a route withdrawn: caught up", routes: withdrawn(), wantCopies: 1},
		{name: "it comes back: caught up", routes: healthy(), wantCopies: 1},
		{name: "the source cannot say: the whole table", routes: withdrawn(), refuse: true, wantCopies: 2},
	}
	for i, st := range steps {
		now = now.Add(time.Second)
		src.set(st.routes, uint64(i+1))
		src.refuse = st.refuse
		l.runOnce()
		s := l.State()
		want := validator.Validate(cluster.c, st.routes, validator.PolicyView{}, validator.Options{Now: now})
		if src.copies != st.wantCopies || len(s.Findings) != len(want.Findings) ||
			!reflect.DeepEqual(s.Summary, want.Summary) {
			t.Fatalf("step %d (%s): %d copies, %d findings, summary %+v; want %d copies, %d findings, %+v",
				i, st.name, src.copies, len(s.Findings), s.Summary, st.wantCopies, len(want.Findings), want.Summary)
		}
	}
	if src.asked == 0 {
		t.Fatal("the loop never asked for changes")
	}
}
