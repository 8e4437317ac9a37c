package validator

import (
	"maps"
	"net/netip"
	"slices"
	"time"
)

// Sync makes the held routes those of routes, as NewEngine would hold them
// (a later route with the identity of an earlier one replaces it), through one
// withdrawal or addition per route that differs, and returns what changed. It
// is what a caller without route events does: its cost is one identity lookup
// per route plus the events, instead of a full validation. A delta that is a
// large part of the table (an initial table, a peer's restart) is applied by
// rebuilding the engine in one full validation instead: one event per route
// would cost more, as each re-checks its prefix and its nodes.
func (e *Engine) Sync(routes []Route) Change { return e.sync(routes, false) }

// SyncOwned is Sync for a caller that hands routes over: a rebuild keeps the
// slice instead of copying it, so the caller must not use it afterwards.
func (e *Engine) SyncOwned(routes []Route) Change { return e.sync(routes, true) }

func (e *Engine) sync(routes []Route, owned bool) Change {
	seen := make([]bool, len(e.s.Routes))
	var adds []int
	for k := range routes {
		r := &routes[k]
		i, held := e.s.find(r)
		switch {
		case !held:
			adds = append(adds, k)
		case seen[i] || !sameRoute(r, &e.s.Routes[i]):
			seen[i] = true
			adds = append(adds, k)
		default:
			seen[i] = true
		}
	}
	var gone []Route
	for i, ok := range seen {
		if !ok {
			gone = append(gone, e.s.Routes[i])
		}
	}
	if bigDelta(len(gone)+len(adds), len(e.s.Routes), len(routes)) {
		return e.rebuild(routes, owned)
	}
	var all Change
	for _, r := range gone {
		c := e.WithdrawRoute(r)
		all.Added, all.Removed = append(all.Added, c.Added...), append(all.Removed, c.Removed...)
	}
	for _, k := range adds {
		c := e.AddRoute(routes[k])
		all.Added, all.Removed = append(all.Added, c.Added...), append(all.Removed, c.Removed...)
	}
	var ch Change // findings removed by one event and added back by another cancel out
	ch.diff(all.Removed, all.Added)
	return ch
}

// sameRoute reports whether two routes are equal in every attribute.
func sameRoute(a, b *Route) bool {
	return a.Prefix == b.Prefix && a.Stale == b.Stale && a.PathID == b.PathID && sameAttributes(a.Attrs(), b.Attrs())
}

// SetNow sets the validation time. Time enters findings only through the text
// of tombstone ages (Snapshot.Ago): it never makes a finding appear or go. So
// with tombstones this re-checks the routes, prefixes and nodes that have
// findings, and without any it re-checks nothing.
func (e *Engine) SetNow(t time.Time) Change {
	if t.Equal(e.s.Options.Now) {
		return Change{}
	}
	e.s.Options.Now = t
	if len(e.s.Cluster.Deleted) == 0 {
		return Change{}
	}
	var ch Change
	for _, i := range slices.Sorted(maps.Keys(e.byRoute)) {
		old := e.byRoute[i]
		for _, r := range e.rules {
			if r.route != nil {
				r.route.CheckRoute(e.s, int(i), r.report)
			}
		}
		e.byRoute.set(int(i), e.replace(old, &ch))
	}
	var prefixes []netip.Prefix
	for _, fs := range e.byPref {
		prefixes = append(prefixes, fs[0].Prefix)
	}
	var nodes []string
	for n := range e.byNode {
		nodes = append(nodes, n)
	}
	e.recheck(prefixes, nodes, &ch)
	e.stale = e.stale || !ch.Empty()
	return ch
}

// Findings returns every finding in canonical order, as Validate would.
func (e *Engine) Findings() []Finding {
	if e.stale {
		var all []Finding
		for _, fs := range e.byRoute {
			all = append(all, fs...)
		}
		for _, fs := range e.byPref {
			all = append(all, fs...)
		}
		for _, fs := range e.byNode {
			all = append(all, fs...)
		}
		for _, fs := range e.whole {
			all = append(all, fs...)
		}
		SortFindings(all)
		e.sorted, e.stale = all, false
	}
	return slices.Clone(e.sorted)
}

// Result returns the findings and their summary, as Validate would.
func (e *Engine) Result() Result {
	fs := e.Findings()
	return Result{Findings: fs, Summary: summarize(e.s, fs)}
}

// Routes returns the routes held, in the order Result's equivalence refers to.
// The slice is the Engine's own: read it, do not keep or modify it.
func (e *Engine) Routes() []Route { return e.s.Routes }
