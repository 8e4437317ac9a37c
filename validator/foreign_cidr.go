package validator

import (
	"fmt"
	"strings"
)

// foreignCIDR fires when a node announces a prefix equal to, inside, or covering
// a CIDR allocated to another node.
type foreignCIDR struct{}

func (foreignCIDR) ID() RuleID { return RuleForeignCIDR }

func (rule foreignCIDR) Check(s *Snapshot, report func(Finding)) {
	for i := range s.Routes {
		rule.CheckRoute(s, i, report)
	}
}

// CheckRoute checks route i (RouteRule).
func (foreignCIDR) CheckRoute(s *Snapshot, i int, report func(Finding)) {
	r := s.Routes[i]
	if v := s.Origin(i).Node; v != nil {
		checkForeign(s, v, r, report)
	}
}

func checkForeign(s *Snapshot, v *NodeView, r Route, report func(Finding)) {
	var ovs []Overlap
	s.Overlapping(r.Prefix, func(ov Overlap) {
		// A prefix outside every known range that covers allocations (a default
		// route, say) is an out-of-range leak first; report it there.
		if ov.Node != v.Name && !(ov.Rel == RelCovering && s.OutOfRange(r.Prefix)) {
			ovs = append(ovs, ov)
		}
	})
	if len(ovs) == 0 {
		return
	}
	owners := ownersOf(ovs, v.Name)
	report(Finding{Prefix: r.Prefix, Node: v.Name, NextHop: r.NextHop, Peer: r.Peer,
		Owner: strings.Join(owners, ","), Message: foreignMessage(v.Name, r, ovs, owners),
		Hint: s.foreignHint(v, r, owners)})
}

func foreignMessage(node string, r Route, ovs []Overlap, owners []string) string {
	first := ovs[0]
	switch {
	case len(ovs) == 1 && first.Rel == RelEqual:
		return fmt.Sprintf("%s announces %s %s, but it is allocated to %s (%s).", node, r.Prefix, r.Via(),
			first.Node, first.Source)
	case len(ovs) == 1 && first.Rel == RelInside:
		return fmt.Sprintf("%s announces %s %s, which lies inside %s allocated to %s (%s).", node, r.Prefix,
			r.Via(), first.Prefix, first.Node, first.Source)
	}
	cidrs := make([]string, len(ovs))
	for i, o := range ovs {
		cidrs[i] = o.Prefix.String()
	}
	return fmt.Sprintf("%s announces %s %s, which covers %d CIDR(s) of %d other node(s): %s (allocated to %s).",
		node, r.Prefix, r.Via(), len(ovs), len(owners), joinLimited(cidrs, 4), joinLimited(owners, 4))
}

func (s *Snapshot) foreignHint(v *NodeView, r Route, owners []string) string {
	if s.announcesNodeSpecCIDR(v, r.Prefix) {
		return "The prefix is " + v.Name + "'s Node.spec.podCIDRs. " + legacySpeakerHint
	}
	if r.Prefix.Bits() < 24 && r.Prefix.Addr().Is4() || r.Prefix.Bits() < 64 && r.Prefix.Addr().Is6() {
		return fmt.Sprintf("An aggregate from one node attracts traffic for other nodes' pods whenever their "+
			"more-specific route is missing. Check %s's BGP advertisements and export policy.", v.Name)
	}
	return fmt.Sprintf("Traffic for pods of %s may be sent to %s. Check %s's BGP advertisements and whether "+
		"its CiliumNode allocation changed (a node recreated under a new name keeps announcing its old CIDR "+
		"until its agent restarts).", joinLimited(owners, 3), v.Name, v.Name)
}
