package monitor

import (
	"slices"
	"sync"
	"time"

	"github.com/routewarden/routewarden/validator"
	"github.com/routewarden/routewarden/validator/convergence"
)

// RouteTimes is a RouteSource that says when its table last changed: the
// time a route change the loop finds was seen by the collector (to within
// the changes of one debounce window). Without it the loop's own time is
// taken.
type RouteTimes interface {
	ChangedAt() time.Time
}

// ConvergenceOptions tune the convergence tracking (convergence.go).
type ConvergenceOptions struct {
	Budgets convergence.Budgets
	// History is how many completed changes Convergence returns (200 when 0).
	History int
}

// Convergence is the convergence tracking's state: the last completed
// changes (oldest first) and those still pending, with the budgets.
type Convergence struct {
	Completed []convergence.Completed `json:"completed"`
	Pending   []convergence.Change    `json:"pending"`
	Budgets   convergence.Budgets     `json:"budgets"`
}

// heldBaselineMax is the most expected routes the converger keeps between
// cluster changes (two map entries each: ~5 MB at 50,000, ~22 MB at 200,000): a baseline of
// more is re-derived from the previous cluster at the next change instead.
const heldBaselineMax = 200_000

// converger times the changes the cluster asks of the routes, from one
// validation to the next: the cluster's expected routes are re-derived when
// its version changes, and the pending changes checked against the engine's
// table after each validation.
type converger struct {
	mu      sync.Mutex
	opts    ConvergenceOptions
	tracker *convergence.Tracker
	version uint64
	known   bool
	nodes   map[string]bool // the cluster's Nodes at version
	prev    *validator.Cluster
	holdMax int    // the most expected routes held between changes (heldBaselineMax)
	gen     uint64 // the options' generation the held baseline was derived with
}

func newConverger(o ConvergenceOptions) *converger {
	if o.History == 0 {
		o.History = 200
	}
	return &converger{opts: o, tracker: convergence.NewTracker(o.History), holdMax: heldBaselineMax}
}

// SetConvergence replaces the convergence budgets (a config reload).
func (l *Loop) SetConvergence(b convergence.Budgets) {
	l.conv.mu.Lock()
	defer l.conv.mu.Unlock()
	l.conv.opts.Budgets = b
}

// Convergence returns the recent and pending convergence of the routes.
func (l *Loop) Convergence() Convergence {
	c := l.conv
	c.mu.Lock()
	defer c.mu.Unlock()
	return Convergence{Completed: c.tracker.History(), Pending: c.tracker.Pending(), Budgets: c.opts.Budgets}
}

// converge folds a validated cluster and the engine's table into the
// tracking and returns the changes completed now and the slow-convergence
// findings. gen is the generation of opts (Loop.optsGen).
func (l *Loop) converge(cluster *validator.Cluster, version uint64, opts validator.Options, gen uint64,
	now time.Time) ([]convergence.Completed, []validator.Finding) {
	c, e := l.conv, l.engines.engine
	if e == nil {
		return nil, nil
	}
	present := func(k convergence.Key) bool { return e.Announces(k.Prefix, k.Node) }
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		c.tracker.ForgetBaseline() // derived with the old scope
		c.gen = gen
	}
	if !c.known || version != c.version {
		at := changedAt(cluster.ChangedAt, now)
		nodes := make(map[string]bool, len(cluster.Nodes))
		for _, n := range cluster.Nodes {
			nodes[n.Name] = true
		}
		if c.known {
			// The previous version's expected routes are re-derived unless the
			// tracker still holds them: held between changes they cost a map
			// entry per route (at 1M routes, ~500 MB and 1.5 s on the first
			// verdict), so only a small set is kept (heldBaselineMax).
			if _, held := c.tracker.Baseline(); !held {
				c.tracker.Cluster(convergence.Expect(c.prev, opts.InScope), at, present)
			}
			c.tracker.Cluster(convergence.Expect(cluster, opts.InScope), at, present)
			c.tracker.Gone(routesOfGone(e, c.nodes, nodes), at)
			if keys, _ := c.tracker.Baseline(); keys > c.holdMax {
				c.tracker.ForgetBaseline()
			}
		}
		c.version, c.known, c.nodes, c.prev = version, true, nodes, cluster
	}
	routesAt := now
	if rt, ok := l.routes.(RouteTimes); ok {
		routesAt = changedAt(rt.ChangedAt(), now)
	}
	done := c.tracker.Observe(present, routesAt)
	return done, convergence.Slow(c.tracker.Pending(), c.opts.Budgets, opts, now)
}

// forgetConvergence drops the baseline while the inventory cannot be
// trusted: what changed meanwhile cannot be timed.
func (l *Loop) forgetConvergence() {
	l.conv.mu.Lock()
	defer l.conv.mu.Unlock()
	l.conv.tracker.Reset()
	l.conv.known, l.conv.prev = false, nil
}

// changedAt is t, or now when t is unknown or in the future.
func changedAt(t, now time.Time) time.Time {
	if t.IsZero() || t.After(now) {
		return now
	}
	return t
}

// withConvergence returns findings with the slow-convergence findings added,
// without writing into findings' array (the engine's).
func withConvergence(findings, slow []validator.Finding) []validator.Finding {
	if len(slow) == 0 {
		return findings
	}
	out := slices.Concat(findings, slow)
	slices.SortFunc(out, validator.CompareFindings)
	return out
}

// holdDownOf is a finding's hold-down: slow-convergence has none, its
// budget is its hold-down (it is to fire before stale-route or
// missing-route, whose hold-down runs from the same change).
func holdDownOf(f validator.Finding, holdDown time.Duration) time.Duration {
	if f.Rule == convergence.RuleSlowConvergence {
		return 0
	}
	return holdDown
}

// pending counts the changes still waiting.
func (c *converger) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.tracker.Pending())
}

// nextDeadline is how long until the first pending change outlives its
// budget (0 when none will), so that slow-convergence fires on time.
func (c *converger) nextDeadline(now time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var next time.Duration
	for _, p := range c.tracker.Pending() {
		b := c.opts.Budgets.For(p.Key.Kind, p.Direction)
		if d := p.Since.Add(b).Sub(now) + time.Millisecond; b > 0 && d > 0 && (next == 0 || d < next) {
			next = d
		}
	}
	return next
}

// routesOfGone returns the keys of the routes in the engine's table that
// belong to nodes in before but not in after (deleted nodes): each should be
// withdrawn. A host route counts as a VIP, anything else as a pod CIDR.
func routesOfGone(e *validator.Engine, before, after map[string]bool) []convergence.Key {
	gone := map[string]bool{}
	for n := range before {
		if !after[n] {
			gone[n] = true
		}
	}
	if len(gone) == 0 {
		return nil
	}
	var keys []convergence.Key
	e.RoutesOf(gone, func(r *validator.Route, n string) {
		kind := convergence.PodCIDR
		if r.Prefix.IsSingleIP() {
			kind = convergence.VIP
		}
		keys = append(keys, convergence.Key{Kind: kind, Prefix: r.Prefix, Node: n})
	})
	return keys
}
