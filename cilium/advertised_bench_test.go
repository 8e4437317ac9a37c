package cilium

import (
	"fmt"
	"strings"
	"testing"
)

// rackObjects: racks racks, each a CiliumBGPClusterConfig selecting its
// node (rack label) with two peers, its own ToR (10.R.0.1, CiliumBGPPeerConfig
// tor) and routewarden (192.0.2.1, rw), told different advertisements; ads
// Service advertisements, each with its own community, two selecting each
// Service (tor is sent both, rw the first: disputed), and services
// LoadBalancer Services spread over them.
func rackObjects(racks, ads, services int) string {
	var b strings.Builder
	b.WriteString(`apiVersion: cilium.io/v2
kind: CiliumBGPPeerConfig
metadata: {name: tor}
spec: {families: [{afi: ipv4, safi: unicast, advertisements: {matchLabels: {to: tor}}}]}
---
apiVersion: cilium.io/v2
kind: CiliumBGPPeerConfig
metadata: {name: rw}
spec: {families: [{afi: ipv4, safi: unicast, advertisements: {matchLabels: {rw: "yes"}}}]}
`)
	for r := range racks {
		fmt.Fprintf(&b, `---
apiVersion: cilium.io/v2
kind: CiliumBGPClusterConfig
metadata: {name: rack%d}
spec:
  nodeSelector: {matchLabels: {rack: r%d}}
  bgpInstances:
  - name: main
    localASN: 65010
    peers:
    - {name: tor, peerASN: 65001, peerAddress: 10.%d.0.1, peerConfigRef: {name: tor}}
    - {name: routewarden, peerASN: 65000, peerAddress: 192.0.2.1, peerConfigRef: {name: rw}}
---
apiVersion: v1
kind: Node
metadata: {name: node%d, labels: {rack: r%d}}
`, r, r, r, r, r)
	}
	for a := range ads {
		fmt.Fprintf(&b, `---
apiVersion: cilium.io/v2
kind: CiliumBGPAdvertisement
metadata: {name: ad%d, labels: {to: tor, rw: "%v"}}
spec:
  advertisements:
  - advertisementType: Service
    service: {addresses: [LoadBalancerIP]}
    selector: {matchLabels: {ad: a%d}}
    attributes: {communities: {standard: ["65010:%d"]}}
`, a, map[bool]string{true: "yes", false: "no"}[a < ads/2], a%(ads/2), 100+a)
	}
	for s := range services {
		fmt.Fprintf(&b, `---
apiVersion: v1
kind: Service
metadata: {name: svc%d, namespace: shop, labels: {ad: a%d}}
spec: {type: LoadBalancer, selector: {app: svc%d}, ports: [{port: 80}]}
status:
  loadBalancer: {ingress: [{ip: 172.16.%d.%d}]}
`, s, s%(ads/2), s, s/250, s%250+1)
	}
	return b.String()
}

// BenchmarkAdvertisedRacks: the intents of 5,000 Services under 20
// advertisements for 50 racks, each node peering with its own ToR (a rack's
// address of its own) and routewarden, told different advertisements: what
// every kube change recomputes.
//
//	go test ./kube -run '^$' -bench BenchmarkAdvertisedRacks -benchmem
func BenchmarkAdvertisedRacks(b *testing.B) {
	o := &Objects{}
	if err := o.Decode("racks.yaml", []byte(rackObjects(50, 20, 5000))); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		a, err := o.advertisedAttributes(nil)
		if err != nil || len(a.NodeGroup) != 50 || len(a.Groups[0].Peers) != 2 {
			b.Fatal(err, a)
		}
	}
}
