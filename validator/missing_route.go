package validator

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// missingRoute fires when a Ready, Cilium-managed node's allocated CIDR is not
// announced with that node as origin, where its IPAM mode advertises pod CIDRs.
//
// Only nodes that announce at all are expected to: the node must be in the
// collector's scope (cluster.nodeSelector) and selected by Cilium's BGP
// configuration (Cluster.BGPSelects: a CiliumBGPClusterConfig or
// CiliumBGPPeeringPolicy whose nodeSelector matches it, or the legacy
// speaker, which runs everywhere). A node no BGP instance selects announces
// nothing by design. When the configuration selects no node at all (no BGP
// objects, as with check and route dumps alone, or a selector matching
// nothing), every Ready Cilium node in scope is expected, as before.
type missingRoute struct{}

func (missingRoute) ID() RuleID { return RuleMissingRoute }

func (rule missingRoute) Check(s *Snapshot, report func(Finding)) {
	for _, name := range s.NodeNames() {
		rule.CheckNode(s, name, report)
	}
}

// NodesAffected names the nodes whose findings route i changes (NodeRule): its
// origin, whose own routes it joins, and the nodes allocated its prefix.
func (missingRoute) NodesAffected(s *Snapshot, i int, add func(string)) {
	if n := s.Origin(i).Name(); n != "" {
		add(n)
	}
	for _, a := range s.AllocatedExactly(s.Routes[i].Prefix) {
		add(a.Node)
	}
}

// CheckNode checks node name (NodeRule).
func (missingRoute) CheckNode(s *Snapshot, name string, report func(Finding)) {
	if !s.Cluster.IPAM.Mode.AdvertisesPodCIDRs() {
		return
	}
	v := s.NodeView(name)
	if v == nil || !v.Managed() || !v.Node.Ready || !s.Options.InScope(v.Node) || !s.Cluster.BGPSelects(name) {
		return
	}
	own := s.RoutesOf(name)
	for _, a := range v.Allocated {
		if s.announcedIn(own, a.Prefix, name) {
			continue
		}
		msg := fmt.Sprintf("%s's CIDR %s (%s) is not announced by %s.", name, a.Prefix, a.Source, name)
		report(Finding{Prefix: a.Prefix, Node: name, Owner: name, Message: msg,
			Hint: s.missingHint(v, a, own)})
	}
}

// announcedIn reports whether node, whose routes are own, announces p: a node
// has a few routes, and looking through them beats the prefix index (a
// million lookups at a million routes).
func (s *Snapshot) announcedIn(own []int, p netip.Prefix, node string) bool {
	if len(own) > 64 {
		return s.announcedBy(p, node)
	}
	for _, i := range own {
		if s.Routes[i].Prefix == p {
			return true
		}
	}
	return false
}

func (s *Snapshot) announcedBy(p netip.Prefix, node string) bool {
	for _, i := range s.RoutesFor(p) {
		if s.Origin(i).Name() == node {
			return true
		}
	}
	return false
}

func (s *Snapshot) missingHint(v *NodeView, a Allocation, own []int) string {
	// The same CIDR's filtered-at-tor tells the story: the node sent it.
	if router := s.droppedFrom(a.Prefix, v.Name); router != "" {
		return fmt.Sprintf("ToR %s received it from %s and its policy dropped it (filtered-at-tor): %s's session "+
			"is up and it announces the CIDR; fix the ToR's inbound policy for %s.", router, v.Name, v.Name, v.Name)
	}
	var parts []string
	if others := s.RoutesFor(a.Prefix); len(others) > 0 {
		var who []string
		for _, i := range others {
			who = append(who, s.describeOrigin(i))
		}
		slices.Sort(who)
		who = slices.Compact(who)
		parts = append(parts, fmt.Sprintf("It is announced by %s instead.", joinLimited(who, 3)))
	}
	for _, i := range own {
		if s.announcesNodeSpecCIDR(v, s.Routes[i].Prefix) {
			parts = append(parts, fmt.Sprintf("%s announces its Node.spec.podCIDRs %s instead. %s", v.Name,
				s.Routes[i].Prefix, legacySpeakerHint))
			return strings.Join(parts, " ")
		}
	}
	sameFamily := 0
	for _, i := range own {
		if family(s.Routes[i].Prefix) == family(a.Prefix) {
			sameFamily++
		}
	}
	switch {
	case len(own) == 0:
		parts = append(parts, fmt.Sprintf("%s announces nothing: is its BGP session up, and does a "+
			"CiliumBGPClusterConfig (or CiliumBGPPeeringPolicy) select it?", v.Name))
	case sameFamily == 0:
		fam := "IPv4"
		if a.Prefix.Addr().Is6() {
			fam = "IPv6"
		}
		parts = append(parts, fmt.Sprintf("%s announces no %s route at all: check that its CiliumBGPPeerConfig "+
			"lists the %s unicast family with a PodCIDR advertisement.", v.Name, fam, strings.ToLower(fam)))
	case s.Cluster.IPAM.Mode == IPAMMultiPool:
		parts = append(parts, "With multi-pool IPAM, pool CIDRs are announced only through a "+
			"CiliumBGPAdvertisement of type CiliumPodIPPool whose selector matches the pool.")
	default:
		parts = append(parts, "Check the node's PodCIDR advertisement and its agent's BGP logs; the allocation "+
			"may have changed without the speaker noticing.")
	}
	return strings.Join(parts, " ")
}

// droppedFrom names the router whose policy dropped node's path for p
// (Policy.Drops), or "" when none did.
func (s *Snapshot) droppedFrom(p netip.Prefix, node string) string {
	for _, d := range s.Policy.Drops {
		if d.Route.Prefix == p && !d.Route.Stale && s.Attribute(d.Route).Name() == node {
			return d.Router
		}
	}
	return ""
}
