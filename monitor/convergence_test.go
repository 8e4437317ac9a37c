package monitor

import (
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
	"github.com/routewarden/routewarden/validator/convergence"
)

// timedRoutes is a route source that says when its table last changed.
type timedRoutes struct {
	fakeRoutes
	at time.Time
}

func (r *timedRoutes) ChangedAt() time.Time { return r.at }

// versionedCluster is a cluster source whose version moves with each change.
type versionedCluster struct {
	fakeCluster
	version uint64
}

func (f *versionedCluster) Cluster(time.Time) (*validator.Cluster, uint64, error) {
	return f.c, f.version, nil
}

// TestLoopConvergence: node2 is deleted while its CIDR stays announced; the
// withdrawal is pending, turns slow-convergence past its 5s budget (at once,
// though the hold-down is 30s), and completes when the route goes, timed from
// the cluster's change to the table's.
func TestLoopConvergence(t *testing.T) {
	routes, fc := world()
	cl := &versionedCluster{fakeCluster: *fc}
	tr := &timedRoutes{fakeRoutes: *routes}
	rec := &recorder{}
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	now := t0
	budgets := convergence.Budgets{PodCIDRAnnounce: 5 * time.Second, PodCIDRWithdraw: 5 * time.Second,
		VIPAnnounce: 5 * time.Second, VIPWithdraw: 5 * time.Second}
	l := New(tr, cl, &fakeWarm{ok: true}, Options{HoldDown: 30 * time.Second, Now: func() time.Time { return now },
		Convergence: ConvergenceOptions{Budgets: budgets}}, rec)
	l.started = t0.Add(-time.Hour)
	l.runOnce() // the baseline

	now = t0.Add(time.Second)
	c := *cl.c
	c.Nodes = c.Nodes[:1]
	c.ChangedAt = t0.Add(900 * time.Millisecond)
	cl.c, cl.version = &c, 1
	l.runOnce()
	if st := l.State(); st.PendingChanges != 1 || len(l.Convergence().Pending) != 1 {
		t.Fatalf("pending %d, want the withdrawal of node2's CIDR", st.PendingChanges)
	}
	if next := l.conv.nextDeadline(now); next <= 0 || next > 5*time.Second {
		t.Errorf("next deadline %s, want within the budget", next)
	}

	now = t0.Add(6 * time.Second)
	l.runOnce()
	if got := kinds(rec.transitions, convergence.RuleSlowConvergence); len(got) != 1 || got[0] != Fired {
		t.Fatalf("slow-convergence transitions %v, want fired", got)
	}

	tr.routes, tr.at = withdrawn(), t0.Add(7*time.Second)
	now = t0.Add(7*time.Second + 20*time.Millisecond)
	l.runOnce()
	st := l.State()
	if len(st.Converged) != 1 || st.Converged[0].Duration != 6100*time.Millisecond || st.PendingChanges != 0 {
		t.Fatalf("converged %+v, pending %d; want node2's withdrawal in 6.1s", st.Converged, st.PendingChanges)
	}
	if got := kinds(rec.transitions, convergence.RuleSlowConvergence); len(got) != 2 || got[1] != Resolved {
		t.Fatalf("slow-convergence transitions %v, want fired, resolved", got)
	}
	if h := l.Convergence().Completed; len(h) != 1 {
		t.Errorf("history %v", h)
	}
}

func kinds(ts []Transition, rule validator.RuleID) []TransitionKind {
	var out []TransitionKind
	for _, t := range ts {
		if t.Finding.Rule == rule {
			out = append(out, t.Kind)
		}
	}
	return out
}
