package validator

import "fmt"

// unallocatedCIDR fires when a node announces a prefix that is allocated to no
// node, inside the pod ranges (or anywhere, when the ranges are unknown), and is
// not a LoadBalancer or allowed range.
type unallocatedCIDR struct{}

func (unallocatedCIDR) ID() RuleID { return RuleUnallocatedCIDR }

func (rule unallocatedCIDR) Check(s *Snapshot, report func(Finding)) {
	for i := range s.Routes {
		rule.CheckRoute(s, i, report)
	}
}

// CheckRoute checks route i (RouteRule).
func (unallocatedCIDR) CheckRoute(s *Snapshot, i int, report func(Finding)) {
	r := s.Routes[i]
	v := s.Origin(i).Node
	if v == nil || s.InServiceRange(r.Prefix) || s.OutOfRange(r.Prefix) {
		return
	}
	overlaps := false
	s.Overlapping(r.Prefix, func(Overlap) { overlaps = true })
	if overlaps {
		return
	}
	msg := fmt.Sprintf("%s announces %s %s, which is allocated to no node.", v.Name, r.Prefix, r.Via())
	report(Finding{Prefix: r.Prefix, Node: v.Name, NextHop: r.NextHop, Peer: r.Peer, Message: msg,
		Hint: s.unallocatedHint(v, r)})
}

func (s *Snapshot) unallocatedHint(v *NodeView, r Route) string {
	if d := s.deletedHolder(r.Prefix); d != nil {
		return fmt.Sprintf("It belonged to %s; %s still announces it. Restart its agent or check its "+
			"advertisements.", s.deletedPhrase(d), v.Name)
	}
	if s.announcesNodeSpecCIDR(v, r.Prefix) {
		return "The prefix is " + v.Name + "'s Node.spec.podCIDRs, not its CiliumNode allocation. " + legacySpeakerHint
	}
	return "No node holds this CIDR: it may belong to a node that is gone, be a leftover static advertisement, " +
		"or be a range routewarden does not know (add it to cluster.allowedRanges in the config if it is " +
		"legitimate)."
}
