package validator

import (
	"net/netip"
	"time"
)

// RuleID names a rule; the IDs are part of routewarden's interface (config,
// output, alert names).
type RuleID string

// The rules, one file each.
const (
	RuleStaleRoute      RuleID = "stale-route"
	RuleForeignCIDR     RuleID = "foreign-cidr"
	RuleUnallocatedCIDR RuleID = "unallocated-cidr"
	RuleOutOfRange      RuleID = "out-of-range"
	RuleMissingRoute    RuleID = "missing-route"
	RulePodCIDRDrift    RuleID = "podcidr-drift"
	RuleDuplicateOrigin RuleID = "duplicate-origin"

	RuleStaleVIP            RuleID = "stale-vip"
	RuleMissingVIP          RuleID = "missing-vip"
	RuleVIPWithoutEndpoints RuleID = "vip-without-endpoints"
	RuleVIPWrongNode        RuleID = "vip-wrong-node"
	RuleVIPMissingNode      RuleID = "vip-missing-node"
	RuleFilteredAtToR       RuleID = "filtered-at-tor"
	RuleAttributeMismatch   RuleID = "attribute-mismatch"
)

// Rule checks one kind of disagreement. Check reports findings without a
// severity; the engine applies the rule's (possibly overridden) severity. What
// else there is to know about a rule is its catalogue entry (Spec), which
// also lists it among Rules.
type Rule interface {
	ID() RuleID
	Check(s *Snapshot, report func(Finding))
}

// RuleOptions adjusts one rule.
type RuleOptions struct {
	Disabled bool
	// Severity overrides the rule's default severity when non-zero.
	Severity Severity
}

// Options adjusts a validation.
type Options struct {
	Rules map[RuleID]RuleOptions
	// AllowedRanges are announced ranges that are neither pod ranges nor
	// LoadBalancer pools but are legitimate (e.g. service or egress ranges).
	AllowedRanges []netip.Prefix
	// NetworkRanges are the network's ranges (uplinks, infrastructure,
	// other tenants): a route there that no node announces is counted, not
	// judged, even inside a pod range or a LoadBalancer pool (scope.go).
	NetworkRanges []netip.Prefix
	// Scope limits missing-route to nodes whose labels contain all of these.
	Scope map[string]string
	// Now is the validation time, for the age of tombstones.
	Now time.Time
}

// Severity is the rule's severity: the configured one, else its default.
func (o Options) Severity(id RuleID) Severity {
	if ro, ok := o.Rules[id]; ok && ro.Severity != 0 {
		return ro.Severity
	}
	s, _ := Spec(id)
	return s.Severity
}

// Enabled reports whether the rule is to judge.
func (o Options) Enabled(id RuleID) bool { return !o.Rules[id].Disabled }

// InScope reports whether missing-route applies to the node.
func (o Options) InScope(n *Node) bool {
	for k, v := range o.Scope {
		if n.Labels[k] != v {
			return false
		}
	}
	return true
}
