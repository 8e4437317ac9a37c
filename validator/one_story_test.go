package validator

import (
	"strings"
	"testing"
)

// TestMissingRouteBesideFilteredAtToR: a node's CIDR the ToR's policy
// dropped is missing from the ToR's table; the missing-route hint tells the
// story filtered-at-tor tells (the node sent it), never "announces nothing:
// is its BGP session up".
func TestMissingRouteBesideFilteredAtToR(t *testing.T) {
	c := cluster(IPAMClusterPool, []string{"10.244.0.0/16"}, n1, n2)
	sent := routes("10.244.2.0/24@10.0.0.12")
	res := Validate(c, routes("10.244.1.0/24@10.0.0.11"), PolicyView{Drops: PolicyDrops("tor1", sent, nil)}, Options{})
	var rules []string
	for _, f := range res.Findings {
		rules = append(rules, string(f.Rule))
		if f.Rule != RuleMissingRoute {
			continue
		}
		if strings.Contains(f.Hint, "announces nothing") || !strings.Contains(f.Hint, "filtered-at-tor") {
			t.Errorf("missing-route hint contradicts filtered-at-tor: %s", f.Hint)
		}
	}
	if strings.Join(rules, ",") != "filtered-at-tor,missing-route" {
		t.Errorf("findings %v, want filtered-at-tor and missing-route for node2", rules)
	}
}

// TestNodeSidePathsJudgedBesideTheToRTable: what a node sent (a node-side
// dump: PolicyView.PrePolicy without a router) is judged in full beside the
// ToR's post-policy table, whose communities are the ToR's policy's; its
// origin AS is judged once, on the node's path.
func TestNodeSidePathsJudgedBesideTheToRTable(t *testing.T) {
	c := cluster(IPAMClusterPool, []string{"10.244.0.0/16"}, n1)
	c.NodeASNs = map[string][]uint32{"node1": {65010}}
	c.Advertised = &AdvertisedAttributes{NodeGroup: map[string]int{"node1": 0},
		Groups: []AdvertisedGroup{{PodCIDR: &AttributeIntent{Communities: []string{"65010:100"}, Advertisements: []string{"pods"}}}}}
	sent := routes("10.244.1.0/24@10.0.0.11")
	sent[0].Communities, sent[0].ASPath = []string{"65010:999"}, []uint32{65099}
	tor := routes("10.244.1.0/24@10.0.0.11")
	tor[0].ASPath = []uint32{65000, 65099}
	MarkPostPolicy(tor)
	res := Validate(c, tor, PolicyView{PrePolicy: sent}, Options{})
	if len(res.Findings) != 1 {
		t.Fatalf("%d findings, want one attribute-mismatch: %+v", len(res.Findings), res.Findings)
	}
	f := res.Findings[0]
	if f.Rule != RuleAttributeMismatch || !strings.Contains(f.Message, "communities 65010:999, expected 65010:100") ||
		!strings.Contains(f.Message, "origin AS 65099") || strings.Contains(f.Message, "router") {
		t.Errorf("finding %s: %s", f.Rule, f.Message)
	}
}
