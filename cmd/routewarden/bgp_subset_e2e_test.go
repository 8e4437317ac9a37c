package main

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/testkube"
	"github.com/routewarden/routewarden/internal/wait"
)

// TestBGPSubsetEndToEnd mirrors two of Cilium's interop scenarios
// (interop/cilium, DIFFERENCES.md) with the stand-in speakers: a
// CiliumBGPClusterConfig selects node1 and node2 (bgp=true); node3 runs no
// BGP. bgp-subset: node3 is in routewarden's scope (rack r1) and announces
// nothing, by configuration: no missing-route. svc-traffic-policy: the only
// ready endpoint of an externalTrafficPolicy Local Service moves to node3,
// now out of scope (rack r2); Cilium withdraws the VIP and nobody anywhere
// announces it: missing-vip.
func TestBGPSubsetEndToEnd(t *testing.T) {
	t.Parallel()
	c := testkube.NewestCilium(t)
	clusterConfig := `apiVersion: ` + c.BGPAPIVersion() + `
kind: CiliumBGPClusterConfig
metadata: {name: tor}
spec:
  nodeSelector: {matchLabels: {bgp: "true"}}
  bgpInstances:
  - name: i65010
    localASN: 65010
    peers: [{name: tor, peerAddress: 127.0.0.1, peerASN: 65000}]
`
	e := newE2EOn(t, c, 3, vipObjects(c), clusterConfig,
		vipService("api", "172.16.100.11", "Local")+vipEndpoints("node1"))
	kubectl := func(args ...string) {
		t.Helper()
		if out, err := e.env.Kubectl(args...); err != nil {
			t.Fatal(out)
		}
	}
	kubectl("label", "node", "node1", "node2", "bgp=true", "rack=r1")
	kubectl("label", "node", "node3", "bgp=false", "rack=r1")
	e.run(t, e2eOptions{Scope: "{rack: r1}"})
	for i := 1; i <= 2; i++ {
		e.speakers[i] = e.speaker(t, i, true)
	}
	announce(t, e.speakers[1], "172.16.100.11/32", 1)
	expect := func(what string, routes int, want ...string) {
		t.Helper()
		slices.Sort(want)
		wait.For(t, what, 60*time.Second, func() error {
			got, n, err := vipFindings(e.api)
			if err != nil {
				return err
			}
			if n != routes || !slices.Equal(got, want) {
				return fmt.Errorf("%d routes, findings %q, want %d and %q", n, got, routes, want)
			}
			return nil
		})
	}
	expect("no missing-route for node3, which no cluster config selects", 3)

	kubectl("label", "node", "node3", "rack=r2", "--overwrite")
	kubectl("-n", "shop", "patch", "endpointslice", "api-1", "--type=json",
		"-p", `[{"op":"replace","path":"/endpoints/0/nodeName","value":"node3"}]`)
	withdraw(t, e.speakers[1], "172.16.100.11/32", 1)
	expect("missing-vip: the only endpoint is on node3, which runs no BGP", 2,
		"missing-vip 172.16.100.11/32 - shop/api firing")
}
