package validator

import (
	"slices"
	"strings"
)

// Mode is a command a rule judges in.
type Mode string

// The modes: the service, and the offline audit of route dumps.
const (
	ModeRun   Mode = "run"
	ModeCheck Mode = "check"
)

// RuleSpec is everything about a rule except its Check: the one list the
// alert names, the configuration's rules keys, the findings metric's series,
// the API's and the chart's enumerations, check --help, the README's table and
// the runbooks (docs/rules/ID.md) derive from, and the rules Validate runs.
// A new rule is its file, its test, its scenario and its entry here.
type RuleSpec struct {
	ID RuleID
	// Alert is the alertname label of the rule's findings.
	Alert    string
	Severity Severity
	// Summary says when the rule fires, in one sentence.
	Summary string
	// Hint is where to look first.
	Hint string
	// Reads names the input the rule judges.
	Reads string
	// Modes are the commands the rule judges in.
	Modes []Mode
	// Rule judges a snapshot; nil for slow-convergence, which times changes.
	Rule Rule
}

// RuleSlowConvergence is the finding of a route change still pending past
// its budget. It is none of Rules: it judges the time a change has been
// waiting, which no single snapshot of routes and cluster shows
// (validator/convergence derives it, monitor/ times it).
const RuleSlowConvergence RuleID = "slow-convergence"

const (
	readsPodCIDRs = "routes; Nodes and CiliumNodes (their allocated pod CIDRs)"
	readsVIPs     = "routes; LoadBalancer Services, EndpointSlices and Cilium's BGP advertisements " +
		"(check: when the cluster files hold Services)"
)

var both = []Mode{ModeRun, ModeCheck}

// catalogue is in documentation order: route rules, VIP rules, then the rest.
var catalogue = []RuleSpec{
	{RuleStaleRoute, "BGPStaleRoute", SeverityCritical,
		"A cluster's route (inside its ranges, or from an address that was a node's) whose origin (next hop, else peer, else router ID) is no current node: a decommissioned node still announcing, or a route left behind.",
		"Stop the BGP speaker on the host behind the next hop, or shut its session on the ToR.",
		readsPodCIDRs + ", deleted nodes (kubernetes.tombstoneTTL)", both, staleRoute{}},
	{RuleForeignCIDR, "BGPForeignCIDR", SeverityCritical,
		"A node announces a prefix equal to, inside or covering a CIDR allocated to another node.",
		"Compare the node's Node.spec.podCIDRs with its CiliumNode spec.ipam.podCIDRs: the legacy speaker announces the former (cilium/cilium#18852).",
		readsPodCIDRs, both, foreignCIDR{}},
	{RuleUnallocatedCIDR, "BGPUnallocatedCIDR", SeverityWarning,
		"A node announces a prefix inside the pod ranges that is allocated to no node.",
		"Look for a released allocation still announced, or the legacy speaker announcing Node.spec.podCIDRs.",
		readsPodCIDRs + ", the pod ranges (cilium-config, cluster.podRanges)", both, unallocatedCIDR{}},
	{RuleOutOfRange, "BGPOutOfRangeRoute", SeverityCritical,
		"A node announces a prefix outside every pod range, LoadBalancer pool and allowed range: a leak such as a default route or a host route.",
		"Find what advertises it on the node (a static advertisement, a redistribution) or add the range to cluster.allowedRanges.",
		"routes; pod ranges, LoadBalancer pools, cluster.allowedRanges", both, outOfRange{}},
	{RuleMissingRoute, "BGPMissingRoute", SeverityCritical,
		"A Ready Cilium node's allocated pod CIDR is not announced by that node.",
		"Check the node's BGP session and its cilium-agent; the pods on that CIDR are unreachable from outside.",
		readsPodCIDRs + ", node readiness, cluster.nodeSelector, the nodes Cilium's BGP configuration selects",
		both, missingRoute{}},
	{RulePodCIDRDrift, "BGPPodCIDRDrift", SeverityWarning,
		"With IPAM kubernetes, a Node's spec.podCIDRs differ from its CiliumNode's spec.ipam.podCIDRs.",
		"A CiliumNode left from an earlier Node of the same name: delete it and restart the node's cilium-agent.",
		"Nodes, CiliumNodes, the IPAM mode (cilium-config, cluster.ipamMode)", both, podCIDRDrift{}},
	{RuleDuplicateOrigin, "BGPDuplicateOrigin", SeverityWarning,
		"One pod CIDR is announced by more than one origin.",
		"Find which of the origins the CIDR is not allocated to, and why it announces it.",
		readsPodCIDRs, both, duplicateOrigin{}},
	{RuleStaleVIP, "BGPStaleVIP", SeverityWarning,
		"A /32 or /128 inside a LoadBalancer pool is announced, but no Service holds the address.",
		"The Service was deleted or its IP changed and a node kept announcing: check that node's cilium-agent.",
		readsVIPs + ", CiliumLoadBalancerIPPools", both, staleVIP{}},
	{RuleMissingVIP, "BGPMissingVIP", SeverityCritical,
		"A LoadBalancer Service with ready endpoints, whose IP Cilium's BGP configuration selects, is announced by no node.",
		"Check the advertisement's selector, the peer config's families and the nodes' BGP sessions.",
		readsVIPs, both, missingVIP{}},
	{RuleVIPWithoutEndpoints, "BGPVIPWithoutEndpoints", SeverityCritical,
		"A Service's VIP is announced while the Service has no ready endpoint: a black hole.",
		"Check the Service's pods and readiness probes.",
		readsVIPs, both, vipWithoutEndpoints{}},
	{RuleVIPWrongNode, "BGPVIPWrongNode", SeverityWarning,
		"With externalTrafficPolicy Local, a node announces a VIP without a local ready endpoint.",
		"The node's cilium-agent missed the endpoint change, or another advertisement announces the address.",
		readsVIPs, both, vipWrongNode{}},
	{RuleVIPMissingNode, "BGPVIPMissingNode", SeverityWarning,
		"A VIP is announced, but a Ready node that should announce it does not: an ECMP path is missing.",
		"Check that node's BGP session and cilium-agent, and whether the BGP configuration's node selector still selects it.",
		readsVIPs + ", CiliumBGPClusterConfig node selectors", both, vipMissingNode{}},
	{RuleSlowConvergence, "BGPSlowConvergence", SeverityWarning,
		"A route change the cluster asked for (node deleted, CIDR allocated, Service IP or endpoints) is still pending past its budget.",
		"An announcement: check Cilium's BGP control plane on the node; a withdrawal: the session's hold and graceful-restart times.",
		"the cluster's changes over time and the routes that follow (validation.convergence budgets)", []Mode{ModeRun}, nil},
	{RuleFilteredAtToR, "BGPFilteredAtToR", SeverityCritical,
		"A ToR received a node's pod CIDR or announced VIP from that node and its inbound policy dropped it.",
		"Check the ToR's inbound prefix list or route-map for the node's session.",
		"BMP pre- and post-policy views from a ToR (run), or --routes against --tor-routes (check)", both, filteredAtToR{}},
	{RuleAttributeMismatch, "BGPAttributeMismatch", SeverityWarning,
		"A node's own announcement carries an origin AS other than its local ASN, or communities or local preference other than its CiliumBGPAdvertisements set.",
		"Compare the node's CiliumBGPClusterConfig or node override (localASN) and the advertisements selecting the prefix with what arrived.",
		"routes' path attributes; CiliumBGPClusterConfig, CiliumBGPNodeConfigOverride, CiliumBGPPeerConfig, CiliumBGPAdvertisement", both, attributeMismatch{}},
}

// Rules returns every rule that judges a snapshot, in documentation order:
// the catalogue's but slow-convergence.
func Rules() []Rule {
	var out []Rule
	for _, s := range catalogue {
		if s.Rule != nil {
			out = append(out, s.Rule)
		}
	}
	return out
}

// Catalogue returns every rule's entry, in documentation order.
func Catalogue() []RuleSpec { return slices.Clone(catalogue) }

// Spec returns the rule's entry.
func Spec(id RuleID) (RuleSpec, bool) {
	i := slices.IndexFunc(catalogue, func(s RuleSpec) bool { return s.ID == id })
	if i < 0 {
		return RuleSpec{}, false
	}
	return catalogue[i], true
}

// RuleIDs lists every rule's ID, in documentation order.
func RuleIDs() []string {
	out := make([]string, len(catalogue))
	for i, s := range catalogue {
		out[i] = string(s.ID)
	}
	return out
}

// RunsIn reports whether the rule judges in the mode.
func (s RuleSpec) RunsIn(m Mode) bool { return slices.Contains(s.Modes, m) }

// Runbook is the rule's runbook, relative to the repository.
func (s RuleSpec) Runbook() string { return "docs/rules/" + string(s.ID) + ".md" }

// RunbookURL is the runbook of name (a rule ID, or inventory-unavailable)
// under base (alerting.runbookBase): base ending in "/" is a directory of
// pages, one a name (name.md, as docs/rules/ is); any other URL is one page
// whose sections are the names (base#name). Empty when base is.
func RunbookURL(base, name string) string {
	switch {
	case base == "":
		return ""
	case strings.HasSuffix(base, "/"):
		return base + name + ".md"
	}
	return base + "#" + name
}
