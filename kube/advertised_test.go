package kube

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/validator"
)

// TestAdvertisedAttributes: the attributes of the CiliumBGPAdvertisements a
// node's peers select become the intent for its pod CIDRs and for the VIPs of
// the Services their selectors match; overlapping ones are merged, named.
func TestAdvertisedAttributes(t *testing.T) {
	const objects = `apiVersion: v1
kind: Node
metadata: {name: node1, labels: {rack: a}}
---
apiVersion: v1
kind: Node
metadata: {name: node2, labels: {rack: b}}
---
apiVersion: cilium.io/v2
kind: CiliumBGPPeerConfig
metadata: {name: tor}
spec: {families: [{afi: ipv4, safi: unicast, advertisements: {matchLabels: {advertise: bgp}}}]}
---
apiVersion: cilium.io/v2
kind: CiliumBGPAdvertisement
metadata: {name: pods, labels: {advertise: bgp}}
spec:
  advertisements:
  - advertisementType: PodCIDR
    attributes:
      communities: {standard: ["65010:100", "4259840100"], wellKnown: [no-export], large: ["65010:1:1"]}
      localPreference: 200
---
apiVersion: cilium.io/v2
kind: CiliumBGPAdvertisement
metadata: {name: svc-a, labels: {advertise: bgp}}
spec:
  advertisements:
  - advertisementType: Service
    service: {addresses: [LoadBalancerIP]}
    selector: {matchLabels: {app: web}}
    attributes: {communities: {standard: ["65010:200"]}}
---
apiVersion: cilium.io/v2
kind: CiliumBGPAdvertisement
metadata: {name: svc-b, labels: {advertise: bgp}}
spec:
  advertisements:
  - advertisementType: Service
    service: {addresses: [LoadBalancerIP]}
    selector: {matchLabels: {tier: front}}
    attributes: {communities: {large: ["65010:2:2"]}}
---
apiVersion: cilium.io/v2
kind: CiliumBGPAdvertisement
metadata: {name: unused, labels: {advertise: other}}
spec:
  advertisements:
  - advertisementType: PodCIDR
    attributes: {communities: {standard: ["1:1"]}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop, labels: {app: web, tier: front}}
spec: {type: LoadBalancer}
status: {loadBalancer: {ingress: [{ip: 172.16.0.10}]}}
---
`
	clusterConfig := func(sel string) string {
		return `apiVersion: cilium.io/v2
kind: CiliumBGPClusterConfig
metadata: {name: tor}
spec:
  nodeSelector: ` + sel + `
  bgpInstances: [{name: tor, localASN: 65010, peers: [{name: tor, peerASN: 65000, peerAddress: 10.0.0.1,
    peerConfigRef: {name: tor}}]}]
`
	}
	const pods = "[65000:100 65010:100 65535:65281] [65010:1:1] pref [200] by [pods]"
	const vip = "[65010:200] [65010:2:2] pref [] by [svc-a svc-b]"
	for _, tc := range []struct {
		name, yaml   string
		node1, node2 string // pod CIDR intent / VIP intent
		err          string
	}{
		{name: "every node", yaml: objects + clusterConfig("{}"), node1: pods + " / " + vip, node2: pods + " / " + vip},
		{name: "rack a only", yaml: objects + clusterConfig("{matchLabels: {rack: a}}"), node1: pods + " / " + vip,
			node2: "<nil> / <nil>"},
		{name: "no attributes", yaml: strings.ReplaceAll(strings.ReplaceAll(objects, "attributes:", "x:"), "    x:", "    x: {}\n    y:") +
			clusterConfig("{}"), node1: "nil", node2: "nil"},
		{name: "bad values", yaml: strings.Replace(strings.Replace(objects, `"65010:200"`, `"65010:70000"`, 1), "no-export",
			"no-exporting", 1), err: `test.yaml:14: CiliumBGPAdvertisement pods: advertisements[0].attributes: ` +
			`communities.wellKnown[0] "no-exporting" is not a well-known community name` + "\n" +
			`test.yaml:24: CiliumBGPAdvertisement svc-a: advertisements[0].attributes: communities.standard[0] ` +
			`"65010:70000" is not a standard community (ASN:VALUE, each 0-65535, or a 32-bit number)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &Objects{}
			if err := o.Decode("test.yaml", []byte(tc.yaml)); err != nil {
				t.Fatal(err)
			}
			c, err := o.Cluster(ClusterOptions{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for node, want := range map[string]string{"node1": tc.node1, "node2": tc.node2} {
				got := "nil"
				if a := c.Advertised; a != nil {
					got = intentString(a.PodCIDR(node)) + " / " + intentString(a.VIP(node, netip.MustParseAddr("172.16.0.10")))
				}
				if got != want {
					t.Errorf("%s: %s, want %s", node, got, want)
				}
			}
		})
	}
}

func intentString(in *validator.AttributeIntent) string {
	if in == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%v %v pref %v by %v", in.Communities, in.LargeCommunities, in.LocalPrefs, in.Advertisements)
}
