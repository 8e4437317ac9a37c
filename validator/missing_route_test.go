package validator

import (
	"strings"
	"testing"
)

func TestMissingRoute(t *testing.T) {
	pool := []string{"10.244.0.0/16"}
	notReady := n2
	notReady.notReady = true
	kubenet := nodeSpec{name: "kubenet1", ip: "10.0.0.21", noCilium: true, k8s: []string{"10.244.100.0/24"}}
	dual := nodeSpec{name: "node1", ip: "10.0.0.11", cilium: []string{"10.244.1.0/24", "fd00:10:244:1::/64"}}
	multi := nodeSpec{name: "node1", ip: "10.0.0.11", pools: map[string][]string{"blue": {"10.20.0.0/26"}}}
	rack1 := n1
	rack1.labels = map[string]string{"rack": "r1"}
	runRuleCases(t, missingRoute{}, []ruleCase{
		{name: "announced", cluster: cluster(IPAMClusterPool, pool, n1), routes: routes("10.244.1.0/24@10.0.0.11")},
		{name: "nothing announced", cluster: cluster(IPAMClusterPool, pool, n1, n2),
			routes: routes("10.244.1.0/24@10.0.0.11"), want: []string{"10.244.2.0/24 node2 node2"}},
		{name: "announced by someone else only", cluster: cluster(IPAMClusterPool, pool, n1, n2),
			routes: routes("10.244.1.0/24@10.0.0.11", "10.244.2.0/24@10.0.0.11"),
			want:   []string{"10.244.2.0/24 node2 node2"}},
		{name: "NotReady node", cluster: cluster(IPAMClusterPool, pool, n1, notReady),
			routes: routes("10.244.1.0/24@10.0.0.11")},
		{name: "node without CiliumNode", cluster: cluster(IPAMClusterPool, pool, n1, kubenet),
			routes: routes("10.244.1.0/24@10.0.0.11")},
		{name: "ENI mode announces no pod CIDRs", cluster: cluster("eni", nil, n1)},
		{name: "graceful-restart stale path counts as announced", cluster: cluster(IPAMClusterPool, pool, n1),
			routes: routes("10.244.1.0/24@10.0.0.11!")},
		{name: "dual stack missing IPv6", cluster: cluster(IPAMClusterPool, pool, dual),
			routes: routes("10.244.1.0/24@10.0.0.11"), want: []string{"fd00:10:244:1::/64 node1 node1"}},
		{name: "multi-pool", cluster: cluster(IPAMMultiPool, nil, multi),
			want: []string{"10.20.0.0/26 node1 node1"}},
		{name: "out of scope", cluster: cluster(IPAMClusterPool, pool, rack1, n2),
			routes: routes("10.244.1.0/24@10.0.0.11"), opts: Options{Scope: map[string]string{"rack": "r1"}}},
		// Cilium's interop scenario bgp-subset: node2 is Ready, in scope, and runs no BGP by design.
		{name: "a node no BGP configuration selects announces nothing by design",
			cluster: withBGP(cluster(IPAMClusterPool, pool, n1, n2), "node1"),
			routes:  routes("10.244.1.0/24@10.0.0.11")},
		{name: "a node the BGP configuration selects is expected",
			cluster: withBGP(cluster(IPAMClusterPool, pool, n1, n2, n3), "node1", "node2"),
			routes:  routes("10.244.1.0/24@10.0.0.11"), want: []string{"10.244.2.0/24 node2 node2"}},
		{name: "a BGP configuration selecting no node: every node expected",
			cluster: withBGP(cluster(IPAMClusterPool, pool, n1, n2)),
			routes:  routes("10.244.1.0/24@10.0.0.11"), want: []string{"10.244.2.0/24 node2 node2"}},
		{name: "selected but out of scope", cluster: withBGP(cluster(IPAMClusterPool, pool, rack1, n2), "node1", "node2"),
			routes: routes("10.244.1.0/24@10.0.0.11"), opts: Options{Scope: map[string]string{"rack": "r1"}}},
	})
}

func TestMissingRouteHintNamesTheFamily(t *testing.T) {
	dual := nodeSpec{name: "node1", ip: "10.0.0.11", cilium: []string{"10.244.1.0/24", "fd00:10:244:1::/64"}}
	var hint string
	missingRoute{}.Check(NewSnapshot(cluster(IPAMClusterPool, nil, dual), routes("10.244.1.0/24@10.0.0.11"), PolicyView{},
		Options{}),
		func(f Finding) { hint = f.Hint })
	if !strings.Contains(hint, "no IPv6 route") {
		t.Errorf("hint: %q", hint)
	}
}
