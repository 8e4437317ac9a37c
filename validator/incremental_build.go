package validator

import (
	"slices"

	"github.com/routewarden/routewarden/validator/index"
)

// rebuildMin is the smallest Sync delta that rebuilds the engine instead of
// applying one event per route; a delta also rebuilds only when it is a large
// part of the table (see Sync).
const rebuildMin = 256

// NewEngine validates routes against the cluster and keeps the state for
// route events. It copies routes; a later route with the identity of an
// earlier one replaces it.
func NewEngine(c *Cluster, routes []Route, pv PolicyView, opts Options) *Engine {
	return NewEngineOwned(c, slices.Clone(routes), pv, opts)
}

// NewEngineOwned is NewEngine for a caller that hands routes over: the engine
// keeps and modifies the slice instead of copying it (a table of a million
// routes is some 170 MB), so the caller must not use it afterwards.
func NewEngineOwned(c *Cluster, routes []Route, pv PolicyView, opts Options) *Engine {
	e := &Engine{}
	e.build(c, routes, pv, opts)
	return e
}

// build (re)initializes the engine over routes, which it owns: duplicates
// (by identity) are folded in place, the later route winning, as NewEngine
// promises. Its cost is one full validation.
func (e *Engine) build(c *Cluster, routes []Route, pv PolicyView, opts Options) {
	// A table from the BGP store has no duplicates: fold only when the
	// snapshot's prefix chains show some.
	s := NewSnapshot(c, routes, pv, opts)
	if s.hasDuplicates() {
		s = NewSnapshot(c, foldDuplicates(routes), pv, opts)
	}
	*e = Engine{s: s, sink: e.sink[:0]}
	e.s.enableUpdates()
	for _, r := range Rules() {
		if opts.Rules[r.ID()].Disabled {
			continue
		}
		id, sev := r.ID(), opts.Severity(r.ID())
		er := engineRule{Rule: r, report: func(f Finding) {
			f.Rule, f.Severity = id, sev
			e.sink = append(e.sink, f)
		}}
		switch ir := r.(type) {
		case RouteRule:
			er.route = ir
		case PrefixRule:
			er.prefix = ir
		case NodeRule:
			er.node = ir
		}
		e.rules = append(e.rules, er)
	}
	e.checkAll()
}

// foldDuplicates keeps the last route of each identity, in place.
func foldDuplicates(routes []Route) []Route {
	ids := make(map[routeID]int, len(routes))
	own := routes[:0]
	for i := range routes {
		r := routes[i]
		k := routeID{index.HashKeyOf(r.Prefix), r.Peer, r.PathID}
		if j, ok := ids[k]; ok {
			own[j] = r
			continue
		}
		ids[k] = len(own)
		own = append(own, r)
	}
	clear(routes[len(own):]) // drop references held by the folded slots
	return own
}

// rebuild replaces the held routes with routes (copied unless owned) in one
// full validation and returns what changed: what Sync does with a delta that
// would cost more route by route (every event re-checks its prefix and nodes).
func (e *Engine) rebuild(routes []Route, owned bool) Change {
	old := e.Findings()
	if !owned {
		routes = slices.Clone(routes)
	}
	e.build(e.s.Cluster, routes, e.s.Policy, e.s.Options)
	var ch Change
	ch.diff(old, e.Findings())
	return ch
}

// bigDelta reports whether a Sync of events route events against a table of
// held routes is cheaper as a rebuild.
func bigDelta(events, held, routes int) bool {
	return events >= rebuildMin && 4*events >= max(held, routes)
}

// found is a finding a rule reported, with the route it was checked for
// (route rules).
type found struct {
	route int
	f     Finding
}

// checkAll computes every finding from scratch. The rules only read the
// fresh snapshot (no route list is out of order yet): on a large one they
// run on all CPUs, as in ValidateSnapshot, and their findings are filed in
// rule order, so the engine's state does not depend on it.
func (e *Engine) checkAll() {
	s := e.s
	e.byRoute = routeFindings{}
	e.byPref, e.byNode, e.whole = map[index.HashKey][]Finding{}, map[string][]Finding{}, map[RuleID][]Finding{}
	out := make([][]found, len(e.rules))
	check := func(k int) {
		r := e.rules[k]
		id, sev := r.ID(), s.Options.Severity(r.Rule.ID())
		cur := -1
		report := func(f Finding) {
			f.Rule, f.Severity = id, sev
			out[k] = append(out[k], found{cur, f})
		}
		if r.route == nil {
			r.Check(s, report)
			return
		}
		for i := range s.Routes {
			cur = i
			r.route.CheckRoute(s, i, report)
		}
		if cp, ok := r.Rule.(ClusterPart); ok { // kept until the next build
			cur = -1
			cp.CheckCluster(s, report)
		}
	}
	runRules(len(e.rules), parallel(len(s.Routes)), check)
	for k, r := range e.rules {
		for _, x := range out[k] {
			f := x.f
			switch {
			case r.route != nil && x.route >= 0:
				e.byRoute[int32(x.route)] = append(e.byRoute[int32(x.route)], f)
			case r.prefix != nil:
				pk := index.HashKeyOf(f.Prefix)
				e.byPref[pk] = append(e.byPref[pk], f)
			case r.node != nil:
				e.byNode[f.Node] = append(e.byNode[f.Node], f)
			default:
				e.whole[r.ID()] = append(e.whole[r.ID()], f)
			}
		}
		out[k] = nil
	}
	e.stale = true
}
