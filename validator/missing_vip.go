package validator

import (
	"fmt"
	"net/netip"
)

// missingVIP fires when a LoadBalancer Service with ready endpoints, whose
// LoadBalancer IP Cilium's BGP configuration selects for announcement, has a
// VIP that nobody announces.
//
// With externalTrafficPolicy Local only the nodes with a ready endpoint that
// Cilium's BGP configuration selects (Cluster.BGPSelects) announce the VIP.
// A collector with a scope (cluster.nodeSelector) leaves the Service to
// another rack's collector when such a node is outside its scope and none is
// inside. A node no BGP configuration selects announces nowhere: when every
// ready endpoint is on such nodes nobody announces the VIP, the Service is
// unreachable, and the rule fires whatever the scope (the hint names them).
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
		report(Finding{Prefix: p, Owner: svc.Key(), Message: msg, Hint: missingVIPHint(svc, s.unselectedReady(svc))})
	}
}

// readyInScope reports whether this collector is the one to see the VIP of a
// Service with externalTrafficPolicy Local: a node within its scope that BGP
// selects has a ready endpoint, or no node that could announce it lies
// outside (a node no BGP configuration selects announces nowhere). A ready
// endpoint on a node routewarden does not know counts as outside: a
// collector of another rack may see its routes.
func (s *Snapshot) readyInScope(svc *Service) bool {
	if len(s.Options.Scope) == 0 {
		return true
	}
	elsewhere := false
	for _, name := range svc.readyNodes() {
		v := s.NodeView(name)
		switch {
		case v == nil || v.Node == nil:
			elsewhere = true
		case !s.Cluster.BGPSelects(name):
		case s.Options.InScope(v.Node):
			return true
		default:
			elsewhere = true
		}
	}
	return !elsewhere
}

// unselectedReady names the Service's nodes with a ready endpoint when they
// are all known nodes Cilium's BGP configuration does not select (nil
// otherwise).
func (s *Snapshot) unselectedReady(svc *Service) []string {
	nodes := svc.readyNodes()
	for _, name := range nodes {
		if v := s.NodeView(name); v == nil || v.Node == nil || s.Cluster.BGPSelects(name) {
			return nil
		}
	}
	return nodes
}
