package validator

import (
	"fmt"
	"net/netip"
)

// vipWithoutEndpoints fires when a Service's VIP is announced while the
// Service has no ready endpoint: the network delivers its traffic to nodes
// that have nowhere to send it.
type vipWithoutEndpoints struct{}

func (vipWithoutEndpoints) ID() RuleID                { return RuleVIPWithoutEndpoints }
func (vipWithoutEndpoints) DefaultSeverity() Severity { return SeverityCritical }
func (vipWithoutEndpoints) Description() string {
	return "a Service's VIP is announced while the Service has no ready endpoint (a black hole)"
}

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
		msg := fmt.Sprintf("%s, the LoadBalancer IP of Service %s, is announced by %s, but the Service has "+
			"no ready endpoint (%s): its traffic is black-holed.", p.Addr(), svc.Key(),
			joinLimited(s.announcers(idx), 4), svc.endpointsPhrase())
		report(Finding{Prefix: p, Owner: svc.Key(), Message: msg, Hint: vipWithoutEndpointsHint(svc)})
	}
}
