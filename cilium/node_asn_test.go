package cilium

import (
	"reflect"
	"testing"
)

// TestNodeASNs: a node's local ASNs come from the CiliumBGPClusterConfigs
// selecting it, its CiliumBGPNodeConfigOverride, and BGP control plane v1.
func TestNodeASNs(t *testing.T) {
	const nodes = `apiVersion: v1
kind: Node
metadata: {name: node1, labels: {rack: a}}
---
apiVersion: v1
kind: Node
metadata: {name: node2, labels: {rack: b}}
---
`
	const cluster = `apiVersion: cilium.io/v2
kind: CiliumBGPClusterConfig
metadata: {name: tor}
spec:
  nodeSelector: {matchLabels: {rack: a}}
  bgpInstances: [{name: tor, localASN: 65010}]
---
`
	for _, tc := range []struct {
		name string
		yaml string
		want map[string][]uint32
	}{
		{"none", nodes, map[string][]uint32{}},
		{"cluster config selects node1", nodes + cluster, map[string][]uint32{"node1": {65010}}},
		{"override", nodes + cluster + `apiVersion: cilium.io/v2
kind: CiliumBGPNodeConfigOverride
metadata: {name: node1}
spec: {bgpInstances: [{name: tor, localASN: 65011}]}
`, map[string][]uint32{"node1": {65011}}},
		{"override without localASN", nodes + cluster + `apiVersion: cilium.io/v2
kind: CiliumBGPNodeConfigOverride
metadata: {name: node1}
spec: {bgpInstances: [{name: tor, routerID: 10.0.0.1}]}
`, map[string][]uint32{"node1": {65010}}},
		{"v1 policy for every node", nodes + `apiVersion: cilium.io/v2alpha1
kind: CiliumBGPPeeringPolicy
metadata: {name: all}
spec: {virtualRouters: [{localASN: 65020, neighbors: []}]}
`, map[string][]uint32{"node1": {65020}, "node2": {65020}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &Objects{}
			if err := o.Decode("test.yaml", []byte(tc.yaml)); err != nil {
				t.Fatal(err)
			}
			c, err := o.Cluster(ClusterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.NodeASNs, tc.want) {
				t.Errorf("NodeASNs %v, want %v", c.NodeASNs, tc.want)
			}
		})
	}
}
