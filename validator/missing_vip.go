package validator

import (
	"fmt"
	"net/netip"
)

// missingVIP fires when a LoadBalancer Service with ready endpoints, whose
// LoadBalancer IP Cilium's BGP configuration selects for announcement, has a
// VIP that nobody announces.
type missingVIP struct{}

func (missingVIP) ID() RuleID { return RuleMissingVIP }

func (r missingVIP) Check(s *Snapshot, report func(Finding)) {
	s.eachVIP(func(p netip.Prefix) { r.CheckPrefix(s, p, report) })
}

// CheckPrefix judges the VIP whose host route is p (an incremental PrefixRule).
func (missingVIP) CheckPrefix(s *Snapshot, p netip.Prefix, report func(Finding)) {
	// A path kept by graceful restart still counts: it is still announced.
	if !s.Cluster.ServicesKnown || !p.IsSingleIP() || len(s.RoutesFor(p)) > 0 {
		return
	}
	for _, svc := range s.ServicesOf(p.Addr()) {
		if !svc.Announced || svc.ReadyEndpoints() == 0 || svc.LocalTraffic() && !s.readyInScope(svc) {
			continue
		}
		msg := fmt.Sprintf("%s, the LoadBalancer IP of Service %s (%s), is announced by no node, though %s "+
			"selects it for announcement.", p.Addr(), svc.Key(), svc.endpointsPhrase(), svc.AnnouncedBy)
		report(Finding{Prefix: p, Owner: svc.Key(), Message: msg, Hint: missingVIPHint(svc)})
	}
}

// readyInScope reports whether a node within the collector's scope has a ready
// endpoint: with externalTrafficPolicy Local only those announce the VIP, and
// a collector of another rack never sees their routes.
func (s *Snapshot) readyInScope(svc *Service) bool {
	if len(s.Options.Scope) == 0 {
		return true
	}
	for _, name := range svc.readyNodes() {
		if v := s.NodeView(name); v != nil && v.Node != nil && s.Options.InScope(v.Node) {
			return true
		}
	}
	return false
}
