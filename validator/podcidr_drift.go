package validator

import (
	"fmt"
	"net/netip"
	"slices"
)

// podCIDRDrift fires in IPAM mode kubernetes when a Node's spec.podCIDRs differ
// from its CiliumNode's spec.ipam.podCIDRs (the agent copies one into the other).
type podCIDRDrift struct{}

func (podCIDRDrift) ID() RuleID { return RulePodCIDRDrift }

func (rule podCIDRDrift) Check(s *Snapshot, report func(Finding)) {
	for _, name := range s.NodeNames() {
		rule.CheckNode(s, name, report)
	}
}

// NodesAffected names no node: the rule reads no route (NodeRule).
func (podCIDRDrift) NodesAffected(*Snapshot, int, func(string)) {}

// CheckNode checks node name (NodeRule).
func (podCIDRDrift) CheckNode(s *Snapshot, name string, report func(Finding)) {
	if s.Cluster.IPAM.Mode != IPAMKubernetes {
		return
	}
	v := s.NodeView(name)
	if v == nil || !v.Managed() || sameSet(v.Node.PodCIDRs, v.Cilium.PodCIDRs) {
		return
	}
	var prefix netip.Prefix
	for _, p := range v.Cilium.PodCIDRs {
		if !slices.Contains(v.Node.PodCIDRs, p) {
			prefix = p
			break
		}
	}
	if !prefix.IsValid() && len(v.Node.PodCIDRs) > 0 {
		prefix = v.Node.PodCIDRs[0]
	}
	msg := fmt.Sprintf("%s: Node.spec.podCIDRs %v differ from CiliumNode spec.ipam.podCIDRs %v.", name,
		prefixStrings(v.Node.PodCIDRs), prefixStrings(v.Cilium.PodCIDRs))
	report(Finding{Prefix: prefix, Node: name, Owner: name, Message: msg, Hint: "With IPAM mode kubernetes " +
		"the agent copies Node.spec.podCIDRs into its CiliumNode when it starts, and the BGP control plane " +
		"announces the CiliumNode's. A difference usually means a CiliumNode left from an earlier Node of the " +
		"same name: delete the CiliumNode and restart the node's cilium-agent."})
}

func sameSet(a, b []netip.Prefix) bool {
	if len(a) != len(b) {
		return false
	}
	for _, p := range a {
		if !slices.Contains(b, p) {
			return false
		}
	}
	return true
}
