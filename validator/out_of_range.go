package validator

import (
	"fmt"
	"slices"
)

// outOfRange fires for a prefix outside every known pod range, LoadBalancer pool
// and allowed range: a default route or a host-route leak. It applies only to
// address families whose pod ranges are known.
type outOfRange struct{}

func (outOfRange) ID() RuleID { return RuleOutOfRange }

func (rule outOfRange) Check(s *Snapshot, report func(Finding)) {
	for i := range s.Routes {
		rule.CheckRoute(s, i, report)
	}
}

// CheckRoute checks route i (RouteRule).
func (outOfRange) CheckRoute(s *Snapshot, i int, report func(Finding)) {
	r := s.Routes[i]
	if !s.OutOfRange(r.Prefix) || s.Network(i) {
		return
	}
	o := s.Origin(i)
	who := s.describeOrigin(i)
	msg := fmt.Sprintf("%s announces %s %s, outside every pod range (%s), LoadBalancer pool and allowed range.",
		who, r.Prefix, r.Via(), joinLimited(prefixStrings(s.podRanges[family(r.Prefix)]), 3))
	report(Finding{Prefix: r.Prefix, Node: o.Name(), NextHop: r.NextHop, Peer: r.Peer, Message: msg,
		Hint: s.outOfRangeHint(o, r)})
}

func (s *Snapshot) outOfRangeHint(o Origin, r Route) string {
	switch {
	case r.Prefix.Bits() == 0:
		return "A default route from a node draws all traffic the ToR cannot place elsewhere to that node. " +
			"Look for a redistribute or originate-default in the node's BGP configuration and an import filter " +
			"on the ToR that lets it in."
	case r.Prefix.IsSingleIP() && o.Node != nil && slices.Contains(o.Node.addresses(), r.Prefix.Addr()):
		return "The node announces its own address as a host route: typically a redistributed connected or " +
			"loopback route. Filter it on the node's export policy and the ToR's import policy."
	case r.Prefix.IsSingleIP():
		return "A host route outside the pod and LoadBalancer ranges: if it is a service VIP, add its pool " +
			"(CiliumLoadBalancerIPPool) or add it to cluster.allowedRanges; otherwise it is a leak."
	}
	return "If this range is legitimate (service, egress or infrastructure), add it to cluster.allowedRanges in " +
		"routewarden's config; otherwise filter it on the ToR."
}
