package validator

import "net/netip"

// An Engine (incremental.go) re-checks after a route event only what the event
// can change. A rule tells it what that is by implementing one of the
// interfaces below; a rule that implements none is re-run in full on every
// event, which is correct but costs a full pass over the routes.
//
// Each interface is a promise about the rule's Check: the Engine builds its
// findings from the narrow method, and the randomized test in
// incremental_test.go compares the two for every registered rule. Every rule
// also promises that Options.Now changes only the text of its findings (ages),
// never whether one exists: Engine.SetNow re-checks only what has findings.

// RouteRule is a rule whose every finding comes from one route and depends on
// nothing but that route, its origin and the cluster: Check reports exactly
// what CheckRoute reports for every route index. (stale-route, foreign-cidr,
// unallocated-cidr, out-of-range.)
type RouteRule interface {
	Rule
	CheckRoute(s *Snapshot, i int, report func(Finding))
}

// PrefixRule is a rule whose findings are each about one prefix
// (Finding.Prefix) and depend on the routes only through the routes of that
// prefix (Snapshot.RoutesFor): CheckPrefix reports exactly the findings of
// Check whose Prefix is p. A route event re-checks its own prefix.
// (duplicate-origin; a VIP rule judging the routes of a VIP's host route.)
type PrefixRule interface {
	Rule
	CheckPrefix(s *Snapshot, p netip.Prefix, report func(Finding))
}

// NodeRule is a rule whose findings each belong to one node (Finding.Node):
// CheckNode reports exactly the findings of Check whose Node is name, and
// NodesAffected names every node whose findings adding or withdrawing route i
// can change (none for a rule that reads no route). (missing-route,
// podcidr-drift.)
type NodeRule interface {
	Rule
	CheckNode(s *Snapshot, name string, report func(Finding))
	NodesAffected(s *Snapshot, i int, add func(name string))
}

// ClusterPart is implemented by a RouteRule that also has findings coming
// from beside the routes alone (Policy.PrePolicy), never from the routes:
// its Check reports what CheckRoute reports for every route plus what
// CheckCluster reports. An Engine checks that part when it is built (a
// change of the cluster or of the network builds a new one) and keeps its
// findings.
type ClusterPart interface {
	CheckCluster(s *Snapshot, report func(Finding))
}

// Change is what a route event changed: findings that appeared and findings
// that went away (a finding whose message changed is in both).
type Change struct {
	Added   []Finding `json:"added"`
	Removed []Finding `json:"removed"`
}

// Empty reports whether nothing changed.
func (c Change) Empty() bool { return len(c.Added) == 0 && len(c.Removed) == 0 }

// diff appends to c what turns old into new (both multisets).
func (c *Change) diff(old, new []Finding) {
	if len(old) == 0 && len(new) == 0 {
		return
	}
	if len(old)*len(new) > 1024 {
		c.diffLarge(old, new)
		return
	}
	gone := make([]bool, len(old))
next:
	for _, f := range new {
		for j, g := range old {
			if !gone[j] && g == f {
				gone[j] = true
				continue next
			}
		}
		c.Added = append(c.Added, f)
	}
	for j, g := range old {
		if !gone[j] {
			c.Removed = append(c.Removed, g)
		}
	}
}

// merge appends o to c, cancelling a finding removed by one and added by the other.
func (c *Change) merge(o Change) {
	var m Change
	m.diff(append(c.Removed, o.Removed...), append(c.Added, o.Added...))
	*c = m
}

func (c *Change) diffLarge(old, new []Finding) {
	count := make(map[Finding]int, len(old))
	for _, f := range old {
		count[f]++
	}
	for _, f := range new {
		if count[f] > 0 {
			count[f]--
			continue
		}
		c.Added = append(c.Added, f)
	}
	for _, f := range old {
		if count[f] > 0 {
			count[f]--
			c.Removed = append(c.Removed, f)
		}
	}
}
