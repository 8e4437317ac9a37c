package interop

import (
	"fmt"
	"strings"
)

// The Kubernetes objects of the scenarios. Node i is at 10.0.0.1i and fd00::1i, owns
// 10.244.i.0/24 and fd00:10:244:i::/64 (cluster-pool IPAM), runs BGP as AS 65010 and peers with
// routewarden (AS 65000) at 10.0.0.1, as Cilium's operator makes of the cluster config below.

// ciliumConfig is cilium-config with the IPAM mode and the cluster pool's ranges.
func ciliumConfig(ipam string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata: {name: cilium-config, namespace: kube-system}
data:
  ipam: %s
  cluster-pool-ipv4-cidr: 10.244.0.0/16
  cluster-pool-ipv6-cidr: fd00:10:244::/56
  enable-bgp-control-plane: "true"
`, ipam)
}

// node is node i: a Ready Node and its CiliumNode, labelled bgp=true (the cluster config's
// selector) and rack=rack1.
func node(i int) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Node
metadata:
  name: node%[1]d
  labels: {kubernetes.io/hostname: node%[1]d, bgp: "true", rack: rack1}
spec:
  podCIDRs: [10.244.%[1]d.0/24, "fd00:10:244:%[1]d::/64"]
status:
  addresses: [{type: InternalIP, address: 10.0.0.1%[1]d}, {type: InternalIP, address: "fd00::1%[1]d"}]
  conditions: [{type: Ready, status: "True", reason: KubeletReady, message: ready,
    lastHeartbeatTime: "2026-11-20T10:00:00Z", lastTransitionTime: "2026-11-20T09:00:00Z"}]
---
apiVersion: cilium.io/v2
kind: CiliumNode
metadata:
  name: node%[1]d
  labels: {kubernetes.io/hostname: node%[1]d, bgp: "true", rack: rack1}
spec:
  addresses: [{type: InternalIP, ip: 10.0.0.1%[1]d}, {type: InternalIP, ip: "fd00::1%[1]d"}]
  ipam:
    podCIDRs: [10.244.%[1]d.0/24, "fd00:10:244:%[1]d::/64"]
`, i)
}

// nodes are nodes 1..n.
func nodes(n int) string {
	var docs []string
	for i := 1; i <= n; i++ {
		docs = append(docs, node(i))
	}
	return strings.Join(docs, "---\n")
}

// clusterConfig is the CiliumBGPClusterConfig of the nodes labelled bgp=true: one instance, AS
// 65010, peering with routewarden at peer (10.0.0.1, or fd00::1 for IPv6 peering) through the
// peer config "routewarden".
func clusterConfig(peer string) string {
	return fmt.Sprintf(`apiVersion: cilium.io/v2
kind: CiliumBGPClusterConfig
metadata: {name: tor}
spec:
  nodeSelector: {matchLabels: {bgp: "true"}}
  bgpInstances:
  - name: tor
    localASN: 65010
    peers:
    - name: routewarden
      peerASN: 65000
      peerAddress: "%s"
      peerConfigRef: {name: routewarden}
`, peer)
}

// peerConfig is the CiliumBGPPeerConfig "routewarden": IPv4 and IPv6 unicast, each selecting
// the advertisements labelled advertise=bgp; graceful restart on (End-of-RIB).
const peerConfig = `apiVersion: cilium.io/v2
kind: CiliumBGPPeerConfig
metadata: {name: routewarden}
spec:
  timers: {connectRetryTimeSeconds: 1}
  gracefulRestart: {enabled: true, restartTimeSeconds: 30}
  families:
  - afi: ipv4
    safi: unicast
    advertisements: {matchLabels: {advertise: bgp}}
  - afi: ipv6
    safi: unicast
    advertisements: {matchLabels: {advertise: bgp}}
`

// podCIDRAdvert advertises every node's pod CIDRs, with the attributes given (YAML, "" for none).
func podCIDRAdvert(name, attributes string) string {
	return advert(name, "advertisementType: PodCIDR", attributes)
}

// advert is the CiliumBGPAdvertisement name, labelled advertise=bgp (the peer config's
// selector), with one advertisement: spec (its YAML lines after "- ", two-space indented) and
// the attributes given (YAML, "" for none).
func advert(name, spec, attributes string) string {
	s := fmt.Sprintf(`apiVersion: cilium.io/v2
kind: CiliumBGPAdvertisement
metadata:
  name: %s
  labels: {advertise: bgp}
spec:
  advertisements:
  - %s
`, name, strings.ReplaceAll(spec, "\n", "\n    "))
	if attributes != "" {
		s += "    attributes: " + attributes + "\n"
	}
	return s
}

// join is a multi-document manifest.
func join(docs ...string) string { return strings.Join(docs, "---\n") }
