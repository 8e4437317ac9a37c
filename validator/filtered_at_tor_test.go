package validator

import (
	"strings"
	"testing"
	"time"
)

func TestFilteredAtToR(t *testing.T) {
	pool := []string{"10.244.0.0/16"}
	web := svcSpec{name: "shop/web", vips: []string{"172.16.100.10"}, endpoints: []string{"node1"}, announced: true}
	quiet := svcSpec{name: "shop/quiet", vips: []string{"172.16.100.11"}, endpoints: []string{"node1"}}
	// c is the two-node cluster; dropped is the ToR having dropped pre
	// (node-side routes, "prefix@nexthop").
	c := withServices(cluster(IPAMClusterPool, pool, n1, n2), web, quiet)
	dropped := func(pre ...string) PolicyView { return PolicyView{Drops: PolicyDrops("tor1", routes(pre...), nil)} }
	runRuleCases(t, filteredAtToR{}, []ruleCase{
		{name: "nothing dropped", cluster: c, policy: dropped()},
		{name: "node2's own pod CIDR dropped", cluster: c, policy: dropped("10.244.2.0/24@10.0.0.12"),
			want: []string{"10.244.2.0/24 node2 node2"}},
		{name: "another node's CIDR dropped: the ToR did right (foreign-cidr judges it)",
			cluster: c, policy: dropped("10.244.1.0/24@10.0.0.12")},
		{name: "announced VIP dropped", cluster: c, policy: dropped("172.16.100.10/32@10.0.0.11"),
			want: []string{"172.16.100.10/32 node1 node1"}},
		{name: "VIP Cilium is not told to announce", cluster: c, policy: dropped("172.16.100.11/32@10.0.0.11")},
		{name: "from no node", cluster: c, policy: dropped("10.244.2.0/24@10.0.0.99")},
		{name: "graceful-restart path", cluster: c, policy: dropped("10.244.2.0/24@10.0.0.12!")},
	})
}

func TestPolicyDrops(t *testing.T) {
	pre := routes("10.244.1.0/24@10.0.0.11", "10.244.2.0/24@10.0.0.12", "10.244.3.0/24@10.0.0.12")
	// The ToR kept 10.244.1.0/24 (changed by policy: another next hop, same
	// peer) and 10.244.3.0/24 as sent; 10.244.2.0/24 is gone.
	post := routes("10.244.1.0/24@192.0.2.1", "10.244.3.0/24@10.0.0.12")
	var got []string
	for _, d := range PolicyDrops("tor1", pre, post) {
		got = append(got, d.Router+" "+d.Route.String())
	}
	want := []string{"tor1 10.244.2.0/24 via next hop 10.0.0.12 (peer 127.0.0.1)"}
	if !equalStrings(got, want) {
		t.Errorf("PolicyDrops\n got: %q\nwant: %q", got, want)
	}
}

func TestFilteredAtToRMessage(t *testing.T) {
	since := time.Date(2026, 11, 25, 17, 0, 0, 0, time.UTC)
	c := cluster(IPAMClusterPool, []string{"10.244.0.0/16"}, n1, n2)
	pv := PolicyView{Drops: []PolicyDrop{{Router: "192.0.2.1", Route: routes("10.244.2.0/24@10.0.0.12")[0], Since: since}}}
	res := Validate(c, nil, pv, Options{Now: since.Add(3 * time.Minute)})
	var msg string
	for _, f := range res.Findings {
		if f.Rule == RuleFilteredAtToR {
			msg = f.Message + " | " + f.Hint
		}
	}
	for _, want := range []string{"ToR 192.0.2.1 received 10.244.2.0/24 (pod CIDR of node2) from node2 (peer 127.0.0.1",
		"since 2026-11-25T17:00:00Z (3m0s ago)", "neighbor 127.0.0.1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}
