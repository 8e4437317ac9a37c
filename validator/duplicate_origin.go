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

func (duplicateOrigin) ID() RuleID                { return RuleDuplicateOrigin }
func (duplicateOrigin) DefaultSeverity() Severity { return SeverityWarning }
func (duplicateOrigin) Description() string {
	return "one pod CIDR announced by more than one origin"
}

func (duplicateOrigin) Check(s *Snapshot, report func(Finding)) {
	var prefixes []netip.Prefix
	for _, head := range s.byPrefix {
		if s.next[head] >= 0 {
			prefixes = append(prefixes, s.Routes[head].Prefix)
		}
	}
	slices.SortFunc(prefixes, comparePrefix)
	for _, p := range prefixes {
		allocs := s.AllocatedExactly(p)
		if len(allocs) == 0 && (!s.InPodRange(p) || s.InServiceRange(p)) {
			continue
		}
		var keys, who []string
		for _, i := range s.RoutesFor(p) {
			if k := s.originKey(i); !slices.Contains(keys, k) {
				keys = append(keys, k)
				who = append(who, s.describeOrigin(i))
			}
		}
		if len(keys) < 2 {
			continue
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
}
