package validator

import (
	"fmt"
	"net/netip"
	"slices"
)

// vipWithoutEndpoints fires when a Service's VIP is announced while the
// Service has no ready endpoint: the network delivers its traffic to nodes
// that have nowhere to send it.
type vipWithoutEndpoints struct{}

func (vipWithoutEndpoints) ID() RuleID { return RuleVIPWithoutEndpoints }

func (r vipWithoutEndpoints) Check(s *Snapshot, report func(Finding)) {
	s.eachVIP(func(p netip.Prefix) { r.CheckPrefix(s, p, report) })
}

// CheckPrefix judges the VIP whose host route is p (an incremental PrefixRule).
func (vipWithoutEndpoints) CheckPrefix(s *Snapshot, p netip.Prefix, report func(Finding)) {
	if !p.IsSingleIP() {
		return
	}
	svcs := s.ServicesOf(p.Addr())
	if len(svcs) == 0 {
		return
	}
	idx := s.announcedVIP(p.Addr())
	if len(idx) == 0 {
		return
	}
	for _, svc := range svcs {
		if svc.ReadyEndpoints() > 0 {
			continue
		}
		// One finding per announcing path, naming its announcer like every
		// finding about a received route, so alerts can be routed by node.
		who := s.announcers(idx)
		for _, i := range idx {
			r := s.Routes[i]
			me, also := s.describeOrigin(i), ""
			if others := slices.DeleteFunc(slices.Clone(who), func(w string) bool { return w == me }); len(others) > 0 {
				also = " and by " + joinLimited(others, 4)
			}
			msg := fmt.Sprintf("%s, the LoadBalancer IP of Service %s, is announced by %s %s%s, but the Service "+
				"has no ready endpoint (%s): its traffic is black-holed.", p.Addr(), svc.Key(), me, r.Via(), also,
				svc.endpointsPhrase())
			report(Finding{Prefix: p, Node: s.Origin(i).Name(), NextHop: r.NextHop, Peer: r.Peer, Owner: svc.Key(),
				Message: msg, Hint: vipWithoutEndpointsHint(svc)})
		}
	}
}
