package main

import (
	"fmt"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The cluster-scale workload's objects, shaped like a production cluster's:
// Nodes with the labels, annotations, conditions, addresses and 50-image
// list a kubelet writes; dual-stack CiliumNodes; LoadBalancer Services with
// their VIP and an EndpointSlice of endpointsPerSlice endpoints on random
// nodes (endpointsPerSlice endpoints on announcersPerVIP nodes: with
// externalTrafficPolicy Local those nodes announce the VIP). Node i has InternalIPs 172.16.i/256.i%256 and fd00:172::i, pod
// CIDRs 10.i/256.i%256.0/24 and fd00:10:244:i::/64; Service j's VIP is
// 100.64.j/256.j%256.

const (
	benchNamespace    = "bench"
	endpointsPerSlice = 10
	imagesPerNode     = 50
	announcersPerVIP  = 4
)

func nodeName(i int) string { return fmt.Sprintf("node-%05d", i) }

func nodeV4(i int) string    { return fmt.Sprintf("172.16.%d.%d", i/256, i%256) }
func nodeV6(i int) string    { return fmt.Sprintf("fd00:172::%x", i) }
func podCIDRV4(i int) string { return fmt.Sprintf("10.%d.%d.0/24", i/256, i%256) }
func podCIDRV6(i int) string {
	return netip.MustParsePrefix(fmt.Sprintf("fd00:10:244:%x::/64", i)).String() // RFC 5952: the API server warns otherwise
}
func serviceVIP(j int) string  { return fmt.Sprintf("100.64.%d.%d", j/256, j%256) }
func serviceName(j int) string { return fmt.Sprintf("svc-%05d", j) }

// benchNode is node i, status included (written through the status subresource).
func benchNode(i int) *corev1.Node {
	name := nodeName(i)
	labels := map[string]string{
		"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		"beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64",
		"node.kubernetes.io/instance-type": "m6i.4xlarge", "beta.kubernetes.io/instance-type": "m6i.4xlarge",
		"topology.kubernetes.io/region": "eu-west-1", "topology.kubernetes.io/zone": fmt.Sprintf("eu-west-1%c", 'a'+i%3),
		"failure-domain.beta.kubernetes.io/region": "eu-west-1", "node-role.kubernetes.io/worker": "",
		"rack": fmt.Sprintf("rack-%03d", i/40), "team": "platform", "pool": fmt.Sprintf("pool-%d", i%8),
		"cilium.io/bgp": "enabled", "example.com/cost-center": "cc-1234", "example.com/tier": "general",
	}
	annotations := map[string]string{
		"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true",
		"csi.volume.kubernetes.io/nodeid":    fmt.Sprintf(`{"ebs.csi.aws.com":"i-%017x"}`, i),
		"io.cilium.network.ipv4-cilium-host": fmt.Sprintf("10.%d.%d.1", i/256, i%256),
		"io.cilium.network.ipv4-pod-cidr":    podCIDRV4(i), "io.cilium.network.ipv6-pod-cidr": podCIDRV6(i),
		"kubeadm.alpha.kubernetes.io/cri-socket": "unix:///run/containerd/containerd.sock",
	}
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: annotations},
		Spec: corev1.NodeSpec{PodCIDR: podCIDRV4(i), PodCIDRs: []string{podCIDRV4(i), podCIDRV6(i)},
			ProviderID: fmt.Sprintf("aws:///eu-west-1a/i-%017x", i)}}
	ts := metav1.Now()
	for _, c := range []struct{ t, s, r string }{{"MemoryPressure", "False", "KubeletHasSufficientMemory"},
		{"DiskPressure", "False", "KubeletHasNoDiskPressure"}, {"PIDPressure", "False", "KubeletHasSufficientPID"},
		{"Ready", "True", "KubeletReady"}, {"NetworkUnavailable", "False", "CiliumIsUp"}} {
		n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: corev1.NodeConditionType(c.t),
			Status: corev1.ConditionStatus(c.s), Reason: c.r, Message: "kubelet reports " + c.r,
			LastHeartbeatTime: ts, LastTransitionTime: ts})
	}
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: nodeV4(i)},
		{Type: corev1.NodeInternalIP, Address: nodeV6(i)}, {Type: corev1.NodeHostName, Address: name}}
	q := resource.MustParse
	n.Status.Capacity = corev1.ResourceList{"cpu": q("16"), "memory": q("64Gi"), "pods": q("110"), "ephemeral-storage": q("200Gi")}
	n.Status.Allocatable = corev1.ResourceList{"cpu": q("15890m"), "memory": q("62Gi"), "pods": q("110")}
	n.Status.NodeInfo = corev1.NodeSystemInfo{MachineID: fmt.Sprintf("%032x", i), SystemUUID: fmt.Sprintf("ec2%029x", i),
		BootID: fmt.Sprintf("%032x", i*7), KernelVersion: "6.1.0-25-cloud-amd64", OSImage: "Debian GNU/Linux 12 (bookworm)",
		ContainerRuntimeVersion: "containerd://1.7.22", KubeletVersion: "v1.34.4", OperatingSystem: "linux", Architecture: "amd64"}
	for k := 0; k < imagesPerNode; k++ {
		repo := fmt.Sprintf("registry.example.com/team-%02d/service-%03d", k%12, k)
		n.Status.Images = append(n.Status.Images, corev1.ContainerImage{
			Names:     []string{fmt.Sprintf("%s@sha256:%064x", repo, k*7919+i), fmt.Sprintf("%s:v1.%d.%d", repo, k, i%10)},
			SizeBytes: int64(50_000_000 + k*1_000_000)})
	}
	return n
}

// benchCiliumNode is node i's CiliumNode (cluster-pool IPAM, dual stack).
func benchCiliumNode(i int) *unstructured.Unstructured {
	name := nodeName(i)
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cilium.io/v2", "kind": "CiliumNode",
		"metadata": map[string]any{"name": name, "labels": map[string]any{"kubernetes.io/hostname": name}},
		"spec": map[string]any{
			"addresses": []any{map[string]any{"type": "InternalIP", "ip": nodeV4(i)},
				map[string]any{"type": "InternalIP", "ip": nodeV6(i)},
				map[string]any{"type": "CiliumInternalIP", "ip": fmt.Sprintf("10.%d.%d.1", i/256, i%256)}},
			"ipam":       map[string]any{"podCIDRs": []any{podCIDRV4(i), podCIDRV6(i)}},
			"health":     map[string]any{"ipv4": fmt.Sprintf("10.%d.%d.2", i/256, i%256)},
			"encryption": map[string]any{},
		},
	}}
}

// benchService is Service j (its status, the VIP, is written separately).
func benchService(j int) *corev1.Service {
	no := false
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: serviceName(j), Namespace: benchNamespace,
			Labels:      map[string]string{"app": serviceName(j), "team": "shop", "announce": "bgp"},
			Annotations: map[string]string{"example.com/owner": "team-shop", "example.com/oncall": "shop-oncall"}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, AllocateLoadBalancerNodePorts: &no,
			ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyLocal,
			Selector:              map[string]string{"app": serviceName(j)},
			Ports:                 []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{
			Ingress: []corev1.LoadBalancerIngress{{IP: serviceVIP(j)}}}},
	}
}

// vipNode is the node of Service j's endpoint k: endpoint k is on the
// k%announcersPerVIP-th of the Service's announcersPerVIP nodes.
func vipNode(j, k, nodes int) int { return (j*announcersPerVIP + (k%announcersPerVIP)*7) % nodes }

// benchSlice is Service j's EndpointSlice: endpointsPerSlice ready
// endpoints on the Service's announcersPerVIP nodes (nodes in all).
func benchSlice(j, nodes int) *discoveryv1.EndpointSlice {
	yes, no := true, false
	port, proto, pname := int32(8080), corev1.ProtocolTCP, "http"
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: serviceName(j) + "-abcde", Namespace: benchNamespace,
			Labels: map[string]string{discoveryv1.LabelServiceName: serviceName(j),
				discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &pname, Port: &port, Protocol: &proto}},
	}
	for k := 0; k < endpointsPerSlice; k++ {
		n := vipNode(j, k, nodes)
		node := nodeName(n)
		zone := fmt.Sprintf("eu-west-1%c", 'a'+n%3)
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{
			Addresses:  []string{fmt.Sprintf("10.%d.%d.%d", n/256, n%256, 10+k)},
			Conditions: discoveryv1.EndpointConditions{Ready: &yes, Serving: &yes, Terminating: &no},
			NodeName:   &node, Zone: &zone,
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: benchNamespace,
				Name: fmt.Sprintf("%s-%d", serviceName(j), k), UID: "00000000-0000-0000-0000-000000000000"},
		})
	}
	return s
}

// benchCiliumObjects are cilium-config and the BGP control plane's objects.
func benchCiliumObjects() []*unstructured.Unstructured {
	u := func(m map[string]any) *unstructured.Unstructured { return &unstructured.Unstructured{Object: m} }
	return []*unstructured.Unstructured{
		u(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "cilium-config", "namespace": "kube-system"},
			"data": map[string]any{"ipam": "cluster-pool", "cluster-pool-ipv4-cidr": "10.0.0.0/8",
				"cluster-pool-ipv6-cidr": "fd00:10:244::/48", "enable-ipv6": "true", "enable-bgp-control-plane": "true"}}),
		u(map[string]any{"apiVersion": "cilium.io/v2", "kind": "CiliumLoadBalancerIPPool",
			"metadata": map[string]any{"name": "vips"},
			"spec":     map[string]any{"blocks": []any{map[string]any{"cidr": "100.64.0.0/16"}}}}),
		u(map[string]any{"apiVersion": "cilium.io/v2", "kind": "CiliumBGPClusterConfig",
			"metadata": map[string]any{"name": "tor"},
			"spec": map[string]any{"nodeSelector": map[string]any{"matchLabels": map[string]any{"cilium.io/bgp": "enabled"}},
				"bgpInstances": []any{map[string]any{"name": "tor", "localASN": int64(65010),
					"peers": []any{map[string]any{"name": "tor", "peerASN": int64(65000), "peerAddress": "127.0.0.1",
						"peerConfigRef": map[string]any{"name": "tor"}}}}}}}),
		u(map[string]any{"apiVersion": "cilium.io/v2", "kind": "CiliumBGPPeerConfig",
			"metadata": map[string]any{"name": "tor"},
			"spec": map[string]any{"families": []any{
				map[string]any{"afi": "ipv4", "safi": "unicast", "advertisements": map[string]any{"matchLabels": map[string]any{"advertise": "bgp"}}},
				map[string]any{"afi": "ipv6", "safi": "unicast", "advertisements": map[string]any{"matchLabels": map[string]any{"advertise": "bgp"}}}}}}),
		u(map[string]any{"apiVersion": "cilium.io/v2", "kind": "CiliumBGPAdvertisement",
			"metadata": map[string]any{"name": "bgp", "labels": map[string]any{"advertise": "bgp"}},
			"spec": map[string]any{"advertisements": []any{
				map[string]any{"advertisementType": "PodCIDR"},
				map[string]any{"advertisementType": "Service", "service": map[string]any{"addresses": []any{"LoadBalancerIP"}},
					"selector": map[string]any{"matchLabels": map[string]any{"announce": "bgp"}}}}}}),
	}
}
