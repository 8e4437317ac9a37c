package validator

import (
	"net/netip"
	"slices"

	"github.com/routewarden/routewarden/validator/index"
)

// Engine is a validation kept up to date route by route. After any sequence of
// AddRoute and WithdrawRoute, Result equals Validate(cluster, Routes(), opts);
// each event re-checks only the route, prefix and nodes it can change (see the
// rule interfaces in rule_incremental.go). A change of the cluster or of the
// options needs a new Engine. An Engine is not safe for concurrent use.
//
// Routes are identified as the BGP store identifies paths: by peer, prefix and
// ADD-PATH path ID. Adding a route with the identity of a held one replaces it.
type Engine struct {
	s       *Snapshot
	rules   []engineRule
	byRoute routeFindings               // route rules' findings, by route index
	byPref  map[index.HashKey][]Finding // prefix rules' findings, by Finding.Prefix
	byNode  map[string][]Finding        // node rules' findings, by Finding.Node
	whole   map[RuleID][]Finding        // findings of rules without an incremental form
	sorted  []Finding                   // every finding, sorted; rebuilt when stale
	stale   bool
	sink    []Finding // what the rules just reported, stamped
}

// routeID is a route's identity (peer, prefix, path ID) as a map key. The
// engine finds a held route by its prefix chain (Snapshot.find); the map is
// only for folding duplicates.
type routeID struct {
	prefix index.HashKey
	peer   netip.Addr
	pathID uint32
}

// routeFindings holds the route rules' findings by route index. Most routes
// have none, and only those with findings take room (a slice with an entry
// for each of a million routes was 24 MB).
type routeFindings map[int32][]Finding

func (m routeFindings) get(i int) []Finding { return m[int32(i)] }

func (m routeFindings) set(i int, fs []Finding) {
	if len(fs) == 0 {
		delete(m, int32(i))
		return
	}
	m[int32(i)] = fs
}

// engineRule is an enabled rule, its incremental form, and its report
// function, which stamps the rule's ID and severity and appends to the sink.
type engineRule struct {
	Rule
	report func(Finding)
	route  RouteRule
	prefix PrefixRule
	node   NodeRule
}

// drain returns a copy of what the rules reported since the last drain.
func (e *Engine) drain() []Finding {
	if len(e.sink) == 0 {
		return nil
	}
	out := slices.Clone(e.sink)
	e.sink = e.sink[:0]
	return out
}

// AddRoute adds a route (or replaces the held route of its identity) and
// returns the findings that changed.
func (e *Engine) AddRoute(r Route) Change {
	var ch Change
	if i, ok := e.s.find(&r); ok {
		if sameRoute(&r, &e.s.Routes[i]) {
			return ch
		}
		ch = e.withdraw(int(i))
	}
	s := e.s
	i := s.addRoute(r)
	for _, rule := range e.rules {
		if rule.route != nil {
			rule.route.CheckRoute(s, i, rule.report)
		}
	}
	e.byRoute.set(i, e.drain())
	add := Change{Added: slices.Clone(e.byRoute.get(i))}
	e.recheck([]netip.Prefix{r.Prefix}, e.affectedNodes(i), &add)
	if ch.Empty() {
		ch = add
	} else {
		ch.merge(add)
	}
	e.stale = e.stale || !ch.Empty()
	return ch
}

// WithdrawRoute removes the held route with r's identity (peer, prefix, path
// ID) and returns the findings that changed; nothing when none is held.
func (e *Engine) WithdrawRoute(r Route) Change {
	i, ok := e.s.find(&r)
	if !ok {
		return Change{}
	}
	ch := e.withdraw(int(i))
	e.stale = e.stale || !ch.Empty()
	return ch
}

func (e *Engine) withdraw(i int) Change {
	s := e.s
	ch := Change{Removed: e.byRoute.get(i)}
	nodes := e.affectedNodes(i)
	p := s.Routes[i].Prefix
	last := len(s.Routes) - 1
	// The last route takes index i. Its findings stay, but a rule may read the
	// routes of a prefix or a node in index order (the first route names an
	// origin, say), so its prefix and nodes are re-checked too.
	prefixes := []netip.Prefix{p}
	if i != last {
		e.byRoute.set(i, e.byRoute.get(last))
		if q := s.Routes[last].Prefix; q != p {
			prefixes = append(prefixes, q)
		}
		for _, n := range e.affectedNodes(last) {
			if !slices.Contains(nodes, n) {
				nodes = append(nodes, n)
			}
		}
	}
	e.byRoute.set(last, nil)
	s.removeRoute(i)
	e.recheck(prefixes, nodes, &ch)
	return ch
}

// affectedNodes lists the nodes whose node-rule findings route i can change.
func (e *Engine) affectedNodes(i int) []string {
	var nodes []string
	for _, r := range e.rules {
		if r.node != nil {
			r.node.NodesAffected(e.s, i, func(n string) {
				if !slices.Contains(nodes, n) {
					nodes = append(nodes, n)
				}
			})
		}
	}
	return nodes
}

// recheck re-checks the prefixes, the nodes, and the rules without an
// incremental form, after a route event.
func (e *Engine) recheck(prefixes []netip.Prefix, nodes []string, ch *Change) {
	s := e.s
	for _, p := range prefixes {
		for _, r := range e.rules {
			if r.prefix != nil {
				r.prefix.CheckPrefix(s, p, r.report)
			}
		}
		k := index.HashKeyOf(p)
		if e.byPref[k] = e.replace(e.byPref[k], ch); len(e.byPref[k]) == 0 {
			delete(e.byPref, k)
		}
	}
	for _, n := range nodes {
		for _, r := range e.rules {
			if r.node != nil {
				r.node.CheckNode(s, n, r.report)
			}
		}
		if e.byNode[n] = e.replace(e.byNode[n], ch); len(e.byNode[n]) == 0 {
			delete(e.byNode, n)
		}
	}
	for _, r := range e.rules {
		if r.route == nil && r.prefix == nil && r.node == nil {
			r.Check(s, r.report)
			e.whole[r.ID()] = e.replace(e.whole[r.ID()], ch)
		}
	}
}

// replace records in ch what turns old into the findings just reported, and
// returns those.
func (e *Engine) replace(old []Finding, ch *Change) []Finding {
	if len(old) == 0 && len(e.sink) == 0 {
		return nil
	}
	fresh := e.drain()
	ch.diff(old, fresh)
	return fresh
}
