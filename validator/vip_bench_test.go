package validator

import (
	"fmt"
	"net/netip"
	"testing"
)

// withSyntheticServices gives every VIP route of syntheticCluster a Service
// (one VIP each, one ready endpoint on the announcing node, every tenth
// externalTrafficPolicy Local with its endpoint on the next node) but leaves
// one VIP in a hundred to no Service.
func withSyntheticServices(c *Cluster, rs []Route) {
	c.ServicesKnown = true
	n := len(c.Nodes)
	for i, r := range rs {
		if !r.Prefix.IsSingleIP() || i%100 == 3 {
			continue
		}
		svc := Service{Namespace: "bench", Name: fmt.Sprintf("svc%07d", i), Type: "LoadBalancer",
			ExternalTrafficPolicy: "Cluster", VIPs: []netip.Addr{r.Prefix.Addr()}, Announced: true}
		node := i % n
		if i%10 == 0 {
			svc.ExternalTrafficPolicy = "Local"
			node = (node + 1) % n
		}
		svc.Endpoints = []Endpoint{{NodeName: c.Nodes[node].Name, Ready: true}}
		c.Services = append(c.Services, svc)
	}
}

// BenchmarkValidateVIPs: Validate with every VIP rule judging, next to
// BenchmarkValidate's same cluster without Services.
func BenchmarkValidateVIPs(b *testing.B) {
	for _, size := range []struct{ nodes, routes int }{{1_000, 10_000}, {10_000, 100_000}} {
		c, rs := syntheticCluster(size.nodes, size.routes)
		withSyntheticServices(c, rs)
		b.Run(fmt.Sprintf("nodes=%d/routes=%d/services=%d", size.nodes, size.routes, len(c.Services)), func(b *testing.B) {
			b.ReportAllocs()
			var findings int
			for b.Loop() {
				findings = len(Validate(c, rs, PolicyView{}, Options{}).Findings)
			}
			b.ReportMetric(float64(findings), "findings")
		})
	}
}

func TestSyntheticServicesFindings(t *testing.T) {
	c, rs := syntheticCluster(1000, 10_000)
	withSyntheticServices(c, rs)
	by := Validate(c, rs, PolicyView{}, Options{}).Summary.ByRule
	// 90 VIPs without a Service; every tenth VIP (900) is Local with its endpoint on another node.
	if by[string(RuleStaleVIP)] != 90 || by[string(RuleVIPWrongNode)] != 900 || by[string(RuleMissingVIP)] != 0 ||
		by[string(RuleVIPWithoutEndpoints)] != 0 || by[string(RuleOutOfRange)] != 0 {
		t.Errorf("synthetic VIP findings by rule: %v", by)
	}
}
