package validator

import (
	"strings"
	"testing"
)

func TestForeignCIDR(t *testing.T) {
	pool := []string{"10.244.0.0/16"}
	runRuleCases(t, foreignCIDR{}, []ruleCase{
		{name: "own CIDR", cluster: cluster(IPAMClusterPool, pool, n1, n2),
			routes: routes("10.244.1.0/24@10.0.0.11")},
		{name: "equal to another node's CIDR", cluster: cluster(IPAMClusterPool, pool, n1, n2),
			routes: routes("10.244.2.0/24@10.0.0.11"), want: []string{"10.244.2.0/24 node1 node2"}},
		{name: "inside another node's CIDR", cluster: cluster(IPAMClusterPool, pool, n1, n2),
			routes: routes("10.244.2.128/25@10.0.0.11"), want: []string{"10.244.2.128/25 node1 node2"}},
		{name: "aggregate covering other nodes", cluster: cluster(IPAMClusterPool, pool, n1, n2, n3),
			routes: routes("10.244.0.0/16@10.0.0.13"), want: []string{"10.244.0.0/16 node3 node1,node2"}},
		{name: "default route is left to out-of-range when ranges are known",
			cluster: cluster(IPAMClusterPool, pool, n1, n2), routes: routes("0.0.0.0/0@10.0.0.11")},
		{name: "default route covers others when ranges are unknown",
			cluster: cluster(IPAMClusterPool, nil, n1, n2), routes: routes("0.0.0.0/0@10.0.0.11"),
			want: []string{"0.0.0.0/0 node1 node2"}},
		{name: "stale origin is not foreign", cluster: cluster(IPAMClusterPool, pool, n1, n2),
			routes: routes("10.244.2.0/24@10.0.0.99")},
		{name: "kubenet node's own Node.spec CIDR is its own", cluster: cluster(IPAMClusterPool, pool, n1,
			nodeSpec{name: "kubenet1", ip: "10.0.0.21", noCilium: true, k8s: []string{"10.244.100.0/24"}}),
			routes: routes("10.244.100.0/24@10.0.0.21")},
		{name: "IPv6", cluster: cluster(IPAMClusterPool, nil,
			nodeSpec{name: "a", ip: "fd00::1", cilium: []string{"fd00:10:244:1::/64"}},
			nodeSpec{name: "b", ip: "fd00::2", cilium: []string{"fd00:10:244:2::/64"}}),
			routes: routes("fd00:10:244:2::/64@fd00::1"), want: []string{"fd00:10:244:2::/64 a b"}},
	})
}

func TestForeignCIDRHintsTheLegacySpeaker(t *testing.T) {
	a := nodeSpec{name: "node1", ip: "10.0.0.11", cilium: []string{"10.244.1.0/24"}, k8s: []string{"10.244.2.0/24"}}
	c := cluster(IPAMClusterPool, []string{"10.244.0.0/16"}, a, n2)
	var hint string
	foreignCIDR{}.Check(NewSnapshot(c, routes("10.244.2.0/24@10.0.0.11"), PolicyView{}, Options{}), func(f Finding) { hint = f.Hint })
	if !strings.Contains(hint, "cilium/cilium#18852") || !strings.Contains(hint, "Node.spec.podCIDRs") {
		t.Errorf("hint does not explain the legacy speaker: %q", hint)
	}
}
