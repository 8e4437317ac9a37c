package validator

import (
	"fmt"
	"net/netip"
	"strings"
)

// staleRoute fires for a route whose origin is no current node: a decommissioned
// node still announcing, or a route left behind.
type staleRoute struct{}

func (staleRoute) ID() RuleID { return RuleStaleRoute }

func (rule staleRoute) Check(s *Snapshot, report func(Finding)) {
	for i := range s.Routes {
		rule.CheckRoute(s, i, report)
	}
}

// CheckRoute checks route i (RouteRule).
func (staleRoute) CheckRoute(s *Snapshot, i int, report func(Finding)) {
	r := s.Routes[i]
	o := s.Origin(i)
	// Paths kept by graceful restart are not stale until their restart time
	// runs out; the BGP speaker itself drops them then.
	if o.Node != nil || r.Stale || s.Network(i) {
		return
	}
	var ovs []Overlap
	s.Overlapping(r.Prefix, func(ov Overlap) { ovs = append(ovs, ov) })
	owners := ownersOf(ovs, "")
	msg := fmt.Sprintf("%s is announced %s, which belongs to no current node", r.Prefix, r.Via())
	switch {
	case o.Deleted != nil:
		msg += fmt.Sprintf("; it belonged to %s", s.deletedPhrase(o.Deleted))
	case o.Orphan != nil:
		msg += fmt.Sprintf("; it matches CiliumNode %s, whose Node no longer exists", o.Orphan.Name)
	}
	report(Finding{Prefix: r.Prefix, NextHop: r.NextHop, Peer: r.Peer, Owner: strings.Join(owners, ","),
		Message: msg + ".", Hint: staleHint(r, o, owners)})
}

func staleHint(r Route, o Origin, owners []string) string {
	var b strings.Builder
	if len(owners) > 0 {
		fmt.Fprintf(&b, "The CIDR is allocated to %s: traffic for those pods is drawn to a machine that is no "+
			"longer in the cluster, so they are unreachable from outside. ", joinLimited(owners, 3))
	}
	if o.Orphan != nil {
		b.WriteString("A CiliumNode outlived its Node: check that the Cilium operator garbage-collects it. ")
	}
	if o.Deleted == nil && o.Orphan == nil {
		// Not known to be a node's: a router's as likely as a forgotten host's.
		fmt.Fprintf(&b, "No current node has the address %s, and none is known to have had it. Find what "+
			"announces %s on the ToR (`show bgp %s unicast %s`): a host that left the cluster with its BGP speaker "+
			"running must leave BGP (stop the speaker, or shut its session); a router's route is withdrawn where it "+
			"is originated, or its range listed in cluster.networkRanges when it is the network's.", firstValid(r),
			r.Prefix, familyName(r.Prefix), r.Prefix)
		return b.String()
	}
	fmt.Fprintf(&b, "Stop the BGP speaker (cilium-agent) on the host behind %s, or shut its session on the ToR; "+
		"a decommissioned node must leave BGP before it leaves the cluster.", firstValid(r))
	return b.String()
}

func firstValid(r Route) string {
	for _, a := range [...]string{addrString(r.NextHop), addrString(r.Peer), addrString(r.RouterID)} {
		if a != "" {
			return a
		}
	}
	return "this route"
}

// familyName is "ipv4" or "ipv6", as router commands spell it.
func familyName(p netip.Prefix) string {
	if p.Addr().Is4() {
		return "ipv4"
	}
	return "ipv6"
}
