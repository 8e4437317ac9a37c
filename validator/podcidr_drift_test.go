package validator

import "testing"

func TestPodCIDRDrift(t *testing.T) {
	same := nodeSpec{name: "node1", ip: "10.0.0.11", cilium: []string{"10.244.1.0/24"}, k8s: []string{"10.244.1.0/24"}}
	drift := nodeSpec{name: "node2", ip: "10.0.0.12", cilium: []string{"10.244.7.0/24"}, k8s: []string{"10.244.2.0/24"}}
	order := nodeSpec{name: "node3", ip: "10.0.0.13", cilium: []string{"fd00::/64", "10.244.3.0/24"},
		k8s: []string{"10.244.3.0/24", "fd00::/64"}}
	kubenet := nodeSpec{name: "kubenet1", ip: "10.0.0.21", noCilium: true, k8s: []string{"10.244.100.0/24"}}
	runRuleCases(t, podCIDRDrift{}, []ruleCase{
		{name: "equal", cluster: cluster(IPAMKubernetes, nil, same)},
		{name: "drift", cluster: cluster(IPAMKubernetes, nil, same, drift), want: []string{"10.244.7.0/24 node2 node2"}},
		{name: "order does not matter", cluster: cluster(IPAMKubernetes, nil, order)},
		{name: "cluster-pool may differ", cluster: cluster(IPAMClusterPool, nil, drift)},
		{name: "kubenet node", cluster: cluster(IPAMKubernetes, nil, kubenet)},
	})
}
