package validator

import "fmt"

// vipWrongNode fires when, for a Service with externalTrafficPolicy Local, a
// node announces the VIP without having a ready endpoint of the Service: the
// share of the traffic the ToR sends that node is dropped there.
type vipWrongNode struct{}

func (vipWrongNode) ID() RuleID { return RuleVIPWrongNode }

func (r vipWrongNode) Check(s *Snapshot, report func(Finding)) {
	for i := range s.Routes {
		r.CheckRoute(s, i, report)
	}
}

// CheckRoute judges route i alone (an incremental RouteRule).
func (vipWrongNode) CheckRoute(s *Snapshot, i int, report func(Finding)) {
	r, v := s.Routes[i], s.Origin(i).Node
	if v == nil || r.Stale || !r.Prefix.IsSingleIP() {
		return
	}
	for _, svc := range s.ServicesOf(r.Prefix.Addr()) {
		// Without any ready endpoint it is vip-without-endpoints' finding.
		if !svc.LocalTraffic() || svc.ReadyEndpoints() == 0 || svc.ReadyOn(v.Name) {
			continue
		}
		msg := fmt.Sprintf("%s announces %s %s for Service %s (externalTrafficPolicy Local), but has no "+
			"ready endpoint of it; its ready endpoints are on %s.", v.Name, r.Prefix, r.Via(), svc.Key(),
			joinLimited(orNone(svc.readyNodes()), 4))
		report(Finding{Prefix: r.Prefix, Node: v.Name, NextHop: r.NextHop, Peer: r.Peer, Owner: svc.Key(),
			Message: msg, Hint: vipWrongNodeHint(v.Name)})
	}
}

func orNone(names []string) []string {
	if len(names) == 0 {
		return []string{"no named node"}
	}
	return names
}
