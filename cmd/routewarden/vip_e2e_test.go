package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/testkube"
	"github.com/routewarden/routewarden/internal/wait"
)

// vipObjects: an LB pool, a CiliumBGPAdvertisement announcing every Service's
// LoadBalancer IP (in the versions the Cilium release c defines them) and the
// namespace shop of the Services.
func vipObjects(c testkube.Cilium) string {
	return `apiVersion: ` + c.LBPoolAPIVersion() + `
kind: CiliumLoadBalancerIPPool
metadata: {name: public-vips}
spec: {blocks: [{cidr: 172.16.100.0/24}]}
---
apiVersion: ` + c.BGPAPIVersion() + `
kind: CiliumBGPAdvertisement
metadata: {name: lb-vips, labels: {advertise: bgp}}
spec:
  advertisements:
  - advertisementType: Service
    service: {addresses: [LoadBalancerIP]}
    selector: {matchExpressions: [{key: somekey, operator: NotIn, values: [never-used-value]}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: shop}
`
}

func vipService(name, vip, policy string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: %[1]s, namespace: shop}
spec: {type: LoadBalancer, externalTrafficPolicy: %[3]s, selector: {app: %[1]s}, ports: [{port: 80, targetPort: 8080}]}
status:
  loadBalancer: {ingress: [{ip: %[2]s}]}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: %[1]s-1, namespace: shop, labels: {kubernetes.io/service-name: %[1]s}}
addressType: IPv4
ports: [{port: 8080}]
`, name, vip, policy)
}

func vipEndpoints(eps ...string) string {
	var b strings.Builder
	b.WriteString("endpoints:\n")
	for i, e := range eps {
		node, notReady := strings.CutSuffix(e, "!")
		fmt.Fprintf(&b, "- {addresses: [10.244.9.%d], nodeName: %s, conditions: {ready: %v}}\n", i+1, node, !notReady)
	}
	return b.String()
}

// TestVIPEndToEnd: a real kube-apiserver with LoadBalancer Services and
// EndpointSlices, real GoBGP speakers announcing /32 VIPs, and routewarden run:
// each of the four VIP findings appears at /api/v1/findings and resolves after
// the repair. Against the newest Cilium release.
func TestVIPEndToEnd(t *testing.T) { testVIPEndToEnd(t, testkube.NewestCilium(t)) }

// TestVIPEndToEndOldestCilium is TestVIPEndToEnd against the oldest release of
// the matrix, whose BGP objects and LB IP pools are cilium.io/v2alpha1.
func TestVIPEndToEndOldestCilium(t *testing.T) { testVIPEndToEnd(t, testkube.OldestCilium(t)) }

func testVIPEndToEnd(t *testing.T, c testkube.Cilium) {
	t.Parallel()
	e := newE2EOn(t, c, 3, vipObjects(c),
		vipService("web", "172.16.100.10", "Cluster")+vipEndpoints("node1", "node2"),
		vipService("api", "172.16.100.11", "Local")+vipEndpoints("node1", "node3!"),
		vipService("db", "172.16.100.12", "Cluster")+vipEndpoints("node2!"),
		vipService("cart", "172.16.100.13", "Cluster")+vipEndpoints("node3"))
	e.run(t, e2eOptions{})
	env, speakers := e.env, e.speakers
	announced := map[int][]string{
		1: {"10.244.1.0/24", "172.16.100.10/32", "172.16.100.11/32"},
		2: {"10.244.2.0/24", "172.16.100.10/32", "172.16.100.11/32", "172.16.100.12/32"},
		3: {"10.244.3.0/24", "172.16.100.10/32", "172.16.100.20/32"},
	}
	for i := 1; i <= 3; i++ {
		speakers[i] = e.speaker(t, i, false)
		for _, p := range announced[i] {
			announce(t, speakers[i], p, i)
		}
	}
	api := e.api
	start := time.Now()
	expect := func(what string, want ...string) {
		t.Helper()
		slices.Sort(want)
		wait.For(t, what, 60*time.Second, func() error {
			got, routes, err := vipFindings(api)
			if err != nil {
				return err
			}
			if routes != 10 && what == "the four VIP findings" || !slices.Equal(got, want) {
				return fmt.Errorf("%d routes, findings %q, want %q", routes, got, want)
			}
			return nil
		})
		t.Logf("%5.1fs %s", time.Since(start).Seconds(), what)
	}
	expect("the four VIP findings",
		"missing-vip 172.16.100.13/32 - shop/cart firing",
		"stale-vip 172.16.100.20/32 node3 - firing",
		"vip-without-endpoints 172.16.100.12/32 node2 shop/db firing",
		"vip-wrong-node 172.16.100.11/32 node2 shop/api firing")

	// The repair: node2 withdraws shop/api's VIP, shop/db's pod becomes ready,
	// node3 announces shop/cart's VIP and withdraws the stale one.
	withdraw(t, speakers[2], "172.16.100.11/32", 2)
	if out, err := env.Kubectl("-n", "shop", "patch", "endpointslice", "db-1", "--type=json",
		"-p", `[{"op":"replace","path":"/endpoints/0/conditions/ready","value":true}]`); err != nil {
		t.Fatal(out)
	}
	announce(t, speakers[3], "172.16.100.13/32", 3)
	withdraw(t, speakers[3], "172.16.100.20/32", 3)
	expect("every VIP finding to resolve")

	// A Service deleted while its VIP stays announced: stale-vip from every announcing node.
	if out, err := env.Kubectl("-n", "shop", "delete", "service", "cart"); err != nil {
		t.Fatal(out)
	}
	expect("stale-vip after deleting shop/cart", "stale-vip 172.16.100.13/32 node3 - firing")
	withdraw(t, speakers[3], "172.16.100.13/32", 3)
	expect("stale-vip to resolve after the withdrawal")
}

// vipFindings lists the findings as "rule prefix node owner firing" ("-" for empty).
func vipFindings(api string) ([]string, int, error) {
	var f struct {
		WarmingUp bool `json:"warmingUp"`
		Summary   struct {
			Routes int `json:"routes"`
		} `json:"summary"`
		Findings []struct {
			Rule, Prefix, Node, Owner string
			Firing                    bool
		} `json:"findings"`
	}
	if err := getJSON(api+"/api/v1/findings", &f); err != nil {
		return nil, 0, err
	}
	if f.WarmingUp {
		return nil, 0, fmt.Errorf("warming up")
	}
	out := []string{}
	for _, x := range f.Findings {
		dash := func(s string) string {
			if s == "" {
				return "-"
			}
			return s
		}
		state := "pending"
		if x.Firing {
			state = "firing"
		}
		out = append(out, strings.Join([]string{x.Rule, x.Prefix, dash(x.Node), dash(x.Owner), state}, " "))
	}
	slices.Sort(out)
	return out, f.Summary.Routes, nil
}
