package validator

import (
	"fmt"
	"net/netip"
	"slices"
)

// vipMissingNode fires when a VIP is announced, but not by every node that
// should announce it: a Ready node Cilium's BGP configuration selects (and,
// with externalTrafficPolicy Local, that has a ready endpoint) is missing
// among the announcers, so the ToR has one ECMP path less and that node's
// share of the traffic goes elsewhere (or, with Local, its endpoints get
// none). It judges only when the BGP configuration names its nodes
// (Cluster.NodeASNs): otherwise which nodes run BGP is unknown. A VIP nobody
// announces is missing-vip's; an extra announcer is vip-wrong-node's.
type vipMissingNode struct{}

func (vipMissingNode) ID() RuleID { return RuleVIPMissingNode }

func (r vipMissingNode) Check(s *Snapshot, report func(Finding)) {
	s.eachVIP(func(p netip.Prefix) { r.CheckPrefix(s, p, report) })
}

// CheckPrefix judges the VIP whose host route is p (an incremental PrefixRule).
func (vipMissingNode) CheckPrefix(s *Snapshot, p netip.Prefix, report func(Finding)) {
	c := s.Cluster
	if !c.ServicesKnown || len(c.NodeASNs) == 0 || !p.IsSingleIP() {
		return
	}
	var announcers []string
	for _, i := range s.RoutesFor(p) {
		if name := s.Origin(i).Name(); name != "" && !slices.Contains(announcers, name) {
			announcers = append(announcers, name)
		}
	}
	if len(announcers) == 0 {
		return
	}
	slices.Sort(announcers)
	for _, svc := range s.ServicesOf(p.Addr()) {
		if !svc.Announced || svc.ReadyEndpoints() == 0 {
			continue
		}
		for _, n := range s.vips().announcers.Expected(svc) {
			if !n.Ready || !s.Options.InScope(n) || slices.Contains(announcers, n.Name) {
				continue
			}
			msg := fmt.Sprintf("%s, the LoadBalancer IP of Service %s, is announced by %s but not by %s, which "+
				"should announce it too: the ToR has one ECMP path less.", p.Addr(), svc.Key(),
				joinLimited(announcers, 4), n.Name)
			report(Finding{Prefix: p, Node: n.Name, Owner: svc.Key(), Message: msg, Hint: vipMissingNodeHint(svc, n.Name)})
		}
	}
}

func vipMissingNodeHint(svc *Service, node string) string {
	why := "the BGP configuration selects it"
	if svc.LocalTraffic() {
		why = "it has a ready endpoint and externalTrafficPolicy is Local"
	}
	return fmt.Sprintf("%s should announce the VIP (%s): check its BGP session to the ToR and routewarden, its "+
		"cilium-agent log, and that its CiliumBGPNodeConfig's advertisements select the Service.", node, why)
}
