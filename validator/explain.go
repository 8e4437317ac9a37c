package validator

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// legacySpeakerHint explains cilium/cilium#18852, the incident routewarden was built for.
const legacySpeakerHint = "This is the legacy MetalLB-based BGP speaker's behaviour (Cilium 1.10–1.16, ConfigMap " +
	"kube-system/bgp-config): it announces Node.spec.podCIDRs, but with cluster-pool IPAM Cilium routes the " +
	"CiliumNode's spec.ipam.podCIDRs, so nodes announce each other's CIDRs (cilium/cilium#18852). Move to the BGP " +
	"control plane (CiliumBGPClusterConfig, or CiliumBGPPeeringPolicy with exportPodCIDR), which announces the " +
	"CiliumNode's CIDRs."

// announcesNodeSpecCIDR reports whether p is one of the node's Node.spec.podCIDRs
// while Cilium allocates differently: the legacy speaker's signature.
func (s *Snapshot) announcesNodeSpecCIDR(v *NodeView, p netip.Prefix) bool {
	if v == nil || v.Node == nil || v.Cilium == nil || s.Cluster.IPAM.Mode != IPAMClusterPool {
		return false
	}
	return slices.Contains(v.Node.PodCIDRs, p) && !slices.ContainsFunc(v.Allocated, func(a Allocation) bool {
		return a.Prefix == p
	})
}

// describeOrigin names where a route came from: "node2", "10.0.0.14 (no current node)".
func (s *Snapshot) describeOrigin(i int) string {
	o, r := s.Origin(i), s.Routes[i]
	if o.Node != nil {
		return o.Node.Name
	}
	addr := r.NextHop
	if !addr.IsValid() {
		addr = r.Peer
	}
	desc := addrString(addr)
	if desc == "" {
		desc = "an unknown origin"
	}
	switch {
	case o.Deleted != nil:
		return fmt.Sprintf("%s (deleted node %s)", desc, o.Deleted.Name)
	case o.Orphan != nil:
		return fmt.Sprintf("%s (CiliumNode %s, whose Node is gone)", desc, o.Orphan.Name)
	}
	return desc + " (no current node)"
}

// originKey identifies an origin for counting distinct origins of a prefix.
func (s *Snapshot) originKey(i int) string {
	if n := s.Origin(i).Name(); n != "" {
		return "node/" + n
	}
	r := s.Routes[i]
	for _, a := range []netip.Addr{r.NextHop, r.Peer, r.RouterID} {
		if a.IsValid() {
			return "addr/" + a.String()
		}
	}
	return "unknown"
}

// ownersOf lists the distinct owners of overlaps, sorted, excluding skip.
func ownersOf(ovs []Overlap, skip string) []string {
	var owners []string
	for _, o := range ovs {
		if o.Node != skip && !slices.Contains(owners, o.Node) {
			owners = append(owners, o.Node)
		}
	}
	slices.Sort(owners)
	return owners
}

// joinLimited joins up to limit items and says how many more there are.
func joinLimited(items []string, limit int) string {
	if len(items) <= limit {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:limit], ", "), len(items)-limit)
}

// deletedHolder finds a tombstone that held p.
func (s *Snapshot) deletedHolder(p netip.Prefix) *DeletedNode {
	var found *DeletedNode
	for i := range s.Cluster.Deleted {
		d := &s.Cluster.Deleted[i]
		if slices.Contains(d.CIDRs, p) && (found == nil || d.DeletedAt.After(found.DeletedAt)) {
			found = d
		}
	}
	return found
}

func (s *Snapshot) deletedPhrase(d *DeletedNode) string {
	if ago := s.Ago(d.DeletedAt); ago != "" {
		return fmt.Sprintf("node %s, deleted %s", d.Name, ago)
	}
	return "node " + d.Name + ", since deleted"
}

func prefixStrings(ps []netip.Prefix) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return out
}

// staleVIPHint explains stale-vip.
const staleVIPHint = "The Service that held this address was probably deleted, or its LoadBalancer IP changed, and " +
	"the announcement stayed: the ToR still draws the address's traffic to the announcing node, which drops it, " +
	"and a new Service given this IP would share its traffic with the stale route. Check the announcing node's " +
	"cilium-agent (it withdraws a deleted Service's VIP when it reconciles) and any static or legacy advertisement " +
	"of the address."

// missingVIPHint explains a missing VIP; unselected are the nodes with a
// ready endpoint when no BGP configuration selects any of them.
func missingVIPHint(svc *Service, unselected []string) string {
	if svc.LocalTraffic() && len(unselected) > 0 {
		return fmt.Sprintf("With externalTrafficPolicy Local only the nodes with a ready endpoint announce the VIP, "+
			"and no CiliumBGPClusterConfig (or CiliumBGPPeeringPolicy) selects any of them (%s): they run no BGP, "+
			"so nobody announces it and the Service is unreachable from outside the cluster. Run its pods on nodes "+
			"that run BGP (a nodeSelector or affinity), select those nodes, or use externalTrafficPolicy Cluster.",
			joinLimited(unselected, 4))
	}
	if svc.LocalTraffic() {
		return fmt.Sprintf("With externalTrafficPolicy Local only the nodes with a ready endpoint (%s) announce "+
			"the VIP: check their BGP sessions to the ToR and routewarden, and their cilium-agent logs. Until it "+
			"is announced the Service is unreachable from outside the cluster.", joinLimited(orNone(svc.readyNodes()), 4))
	}
	return "Every node the BGP configuration selects should announce it: check the nodes' BGP sessions, the " +
		"CiliumBGPPeerConfig's families and the advertisement's selector, the Service's loadBalancerClass, and the " +
		"cilium-agent logs. Until it is announced the Service is unreachable from outside the cluster."
}

func vipWithoutEndpointsHint(svc *Service) string {
	return fmt.Sprintf("Check the Service's pods and readiness probes (kubectl -n %s get endpointslices -l "+
		"kubernetes.io/service-name=%s). With externalTrafficPolicy Cluster Cilium announces the VIP whether or not "+
		"the Service has endpoints; clients get no answer until a pod is ready.", svc.Namespace, svc.Name)
}

func vipWrongNodeHint(node string) string {
	return fmt.Sprintf("With externalTrafficPolicy Local a node without a local endpoint drops the VIP's traffic "+
		"to keep the client's source address, so Cilium announces the VIP only from nodes with a ready endpoint. "+
		"If %s keeps announcing it, its cilium-agent missed the endpoint change (check its log) or another "+
		"advertisement (a static route, the legacy speaker) announces the address.", node)
}
