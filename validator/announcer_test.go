package validator

import (
	"slices"
	"testing"
)

// TestFindingsNameTheirAnnouncer checks, across every rule, that a finding
// about a route a current node announces names that node, its next hop and
// its peer (so alerts can be routed by node); only the rules about an absence
// or about allocations may leave them empty.
func TestFindingsNameTheirAnnouncer(t *testing.T) {
	about := []RuleID{RuleMissingRoute, RuleMissingVIP, RulePodCIDRDrift, RuleDuplicateOrigin}
	pool := []string{"10.244.0.0/16"}
	noEndpoints := svcSpec{name: "shop/db", vips: []string{"172.16.100.12"}}
	local := svcSpec{name: "shop/api", vips: []string{"172.16.100.11"}, local: true, endpoints: []string{"node1"}}
	cases := []struct {
		name   string
		c      *Cluster
		routes []Route
		rules  []RuleID // the rules the case must exercise
	}{
		{name: "VIPs", c: withServices(cluster(IPAMClusterPool, pool, n1, n2, n3), noEndpoints, local),
			routes: routes("172.16.100.12/32@10.0.0.11", "172.16.100.12/32@10.0.0.12", "172.16.100.11/32@10.0.0.12",
				"172.16.100.20/32@10.0.0.13"),
			rules: []RuleID{RuleVIPWithoutEndpoints, RuleVIPWrongNode, RuleStaleVIP}},
		{name: "pod CIDRs", c: cluster(IPAMClusterPool, pool, n1, n2, n3),
			routes: routes("10.244.2.0/24@10.0.0.11", "10.244.9.0/24@10.0.0.12", "192.168.0.0/24@10.0.0.13"),
			rules:  []RuleID{RuleForeignCIDR, RuleUnallocatedCIDR, RuleOutOfRange}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSnapshot(tc.c, tc.routes, PolicyView{}, Options{})
			seen := map[RuleID]bool{}
			for _, f := range ValidateSnapshot(s).Findings {
				seen[f.Rule] = true
				if slices.Contains(about, f.Rule) {
					continue
				}
				for _, i := range s.RoutesFor(f.Prefix) {
					if s.Origin(i).Node == nil {
						continue
					}
					if f.Node == "" || !f.NextHop.IsValid() || !f.Peer.IsValid() {
						t.Errorf("%s %s: node %q, next hop %v, peer %v; want its announcer named", f.Rule, f.Prefix,
							f.Node, f.NextHop, f.Peer)
					}
				}
			}
			for _, r := range tc.rules {
				if !seen[r] {
					t.Errorf("the case does not exercise %s", r)
				}
			}
		})
	}
}
