package monitor

import (
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// TestConvergenceHeldBaseline: the pending changes are the same whether the
// previous cluster's expected routes are held between changes or re-derived
// from the previous cluster at each change (holdMax 0).
func TestConvergenceHeldBaseline(t *testing.T) {
	for _, tc := range []struct {
		name    string
		holdMax int
		// held says whether the baseline is held after a step whose cluster
		// expects n routes (both nodes: 2, node1 alone: 1).
		held func(n int) bool
	}{
		{"held", heldBaselineMax, func(int) bool { return true }},
		{"re-derived", 0, func(int) bool { return false }},
		{"crossing the limit both ways", 1, func(n int) bool { return n <= 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			routes, fc := world()
			cl := &versionedCluster{fakeCluster: *fc}
			t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
			now := t0
			l := New(routes, cl, &fakeWarm{ok: true}, Options{Now: func() time.Time { return now }})
			l.conv.holdMax = tc.holdMax
			l.started = t0.Add(-time.Hour)
			both, one := cl.c, withoutNode2(cl.c)
			steps := []struct {
				cluster   *validator.Cluster
				routes    []validator.Route
				pending   int
				converged int
			}{
				{both, healthy(), 0, 0},   // the baseline
				{one, healthy(), 1, 0},    // node2 deleted, its CIDR still announced
				{both, healthy(), 0, 0},   // node2 back before the route went
				{one, healthy(), 1, 0},    // deleted again
				{one, withdrawn(), 0, 1},  // the route goes
				{both, withdrawn(), 1, 0}, // node2 back: its CIDR is to be announced
				{both, healthy(), 0, 1},   // and is
			}
			for i, s := range steps {
				now = t0.Add(time.Duration(i) * time.Second)
				cl.c, cl.version, routes.routes = s.cluster, uint64(i), s.routes
				l.runOnce()
				st := l.State()
				if st.PendingChanges != s.pending || len(st.Converged) != s.converged {
					t.Fatalf("step %d: pending %d, converged %d; want %d, %d", i, st.PendingChanges,
						len(st.Converged), s.pending, s.converged)
				}
				if _, held := l.conv.tracker.Baseline(); i > 0 && held != tc.held(len(s.cluster.Nodes)) {
					t.Errorf("step %d: baseline held %t, want %t", i, held, tc.held(len(s.cluster.Nodes)))
				}
			}
		})
	}
}

// TestConvergenceBaselineAfterReload: a held baseline derived with the old
// scope is dropped by SetOptions: a scope that now excludes every node
// does not make their routes look like pending withdrawals.
func TestConvergenceBaselineAfterReload(t *testing.T) {
	l, cl, both := heldBaseline(t)
	l.SetOptions(validator.Options{Scope: map[string]string{"rack": "r9"}}, 0)
	same := *both
	cl.c, cl.version = &same, 3 // a change outside the expected routes
	l.runOnce()
	if st := l.State(); st.PendingChanges != 0 {
		t.Errorf("pending %d, want 0: no node is in scope", st.PendingChanges)
	}
}

// TestConvergenceBaselineAfterOutage: a baseline held before the inventory
// became unavailable is dropped with the tracking: node2, deleted while the
// inventory was away, is not a pending withdrawal at the next change (what
// changed meanwhile cannot be timed).
func TestConvergenceBaselineAfterOutage(t *testing.T) {
	l, cl, both := heldBaseline(t)
	available := cl.status
	cl.status = validator.InventoryStatus{Synced: true}
	l.runOnce()
	cl.status = available
	one := withoutNode2(both)
	cl.c, cl.version = one, 3 // node2 went while the inventory was away
	l.runOnce()
	same := *one
	cl.c, cl.version = &same, 4 // a change that moves no route
	l.runOnce()
	if st := l.State(); st.PendingChanges != 0 {
		t.Errorf("pending %d, want 0: node2's deletion happened while the inventory was away", st.PendingChanges)
	}
}

// heldBaseline returns a loop that has validated both nodes (version 0),
// node1 alone (1) and both again (2), and holds version 2's expected routes;
// its cluster source; and the two-node cluster.
func heldBaseline(t *testing.T) (*Loop, *versionedCluster, *validator.Cluster) {
	t.Helper()
	routes, fc := world()
	cl := &versionedCluster{fakeCluster: *fc}
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	l := New(routes, cl, &fakeWarm{ok: true}, Options{Now: func() time.Time { return now }})
	l.started = now.Add(-time.Hour)
	both := cl.c
	for v, c := range []*validator.Cluster{both, withoutNode2(both), both} {
		cl.c, cl.version = c, uint64(v)
		l.runOnce()
	}
	if _, held := l.conv.tracker.Baseline(); !held {
		t.Fatal("baseline not held")
	}
	return l, cl, both
}

func withoutNode2(c *validator.Cluster) *validator.Cluster {
	out := *c
	out.Nodes = c.Nodes[:1]
	return &out
}
