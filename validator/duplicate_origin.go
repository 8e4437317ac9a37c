package validator

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// duplicateOrigin fires when one pod CIDR is announced by more than one origin.
// Only pod CIDRs count: LoadBalancer VIPs are announced by many nodes on purpose.
type duplicateOrigin struct{}

func (duplicateOrigin) ID() RuleID { return RuleDuplicateOrigin }

func (rule duplicateOrigin) Check(s *Snapshot, report func(Finding)) {
	var prefixes []netip.Prefix
	s.byPrefix.Heads(func(head int32) {
		if s.next[head] >= 0 {
			prefixes = append(prefixes, s.Routes[head].Prefix)
		}
	})
	slices.SortFunc(prefixes, comparePrefix)
	for _, p := range prefixes {
		rule.CheckPrefix(s, p, report)
	}
}

// CheckPrefix checks the routes of prefix p (PrefixRule).
func (duplicateOrigin) CheckPrefix(s *Snapshot, p netip.Prefix, report func(Finding)) {
	routes := s.RoutesFor(p)
	if len(routes) < 2 {
		return
	}
	allocs := s.AllocatedExactly(p)
	if len(allocs) == 0 && (!s.InPodRange(p) || s.InServiceRange(p)) {
		return
	}
	var keys, who []string
	for _, i := range routes {
		if s.Network(i) {
			continue
		}
		if k := s.originKey(i); !slices.Contains(keys, k) {
			keys = append(keys, k)
			who = append(who, s.describeOrigin(i))
		}
	}
	if len(keys) < 2 {
		return
	}
	slices.Sort(who)
	owner := ""
	if len(allocs) > 0 {
		owner = allocs[0].Node
	}
	msg := fmt.Sprintf("%s is announced by %d origins: %s.", p, len(keys), joinLimited(who, 4))
	hint := "A pod CIDR has exactly one home; with several origins the ToR spreads its traffic (ECMP) or " +
		"picks one by path attributes, so some or all of it lands on a node that has no such pods."
	if owner != "" {
		hint = fmt.Sprintf("It is allocated to %s. %s Find the other origins in the stale-route and "+
			"foreign-cidr findings.", owner, hint)
	}
	report(Finding{Prefix: p, Node: owner, Owner: owner, Message: msg, Hint: strings.TrimSpace(hint)})
}
