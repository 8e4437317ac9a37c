package httpapi

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

// scenario is what the status page is shown: the API's sources, and what the
// page must render from them.
type scenario struct {
	now      time.Time
	cluster  *validator.Cluster
	routes   []validator.Route
	findings []monitor.Tracked
	peers    []Peer
	// nodes: node name → the status the page must give it.
	nodes map[string]string
	// chips: "node prefix" → the status of that allocated or announced prefix.
	chips map[string]string
}

func (sc *scenario) sources() Sources {
	return Sources{
		State: func() monitor.State {
			sum := validator.Validate(sc.cluster, sc.routes, validator.PolicyView{}, validator.Options{Now: sc.now}).Summary
			return monitor.State{At: sc.now.Add(-2 * time.Second), Findings: sc.findings, Summary: sum,
				Inventory: validator.InventoryStatus{Synced: true, Available: true}}
		},
		Routes:  func() []validator.Route { return sc.routes },
		Peers:   func() []Peer { return sc.peers },
		Cluster: func() (*validator.Cluster, error) { return sc.cluster, nil },
		Ready:   func() (bool, string) { return true, "" },
		Now:     func() time.Time { return sc.now },
	}
}

// findingAges are the ages given to the findings, in rule order (rules past the
// end get i minutes): every branch of the page's age format appears.
var findingAges = []time.Duration{45 * time.Second, 12*time.Minute + 5*time.Second, 3*time.Hour + 7*time.Minute,
	52 * time.Hour, 9 * time.Minute, 90 * time.Minute, 20 * time.Second}

// ageText is the page's age format ("45s", "12m 5s", "3h 7m", "2d 4h").
func ageText(d time.Duration) string {
	s := int(d / time.Second)
	m, h := s/60, s/3600
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case m < 60:
		return fmt.Sprintf("%dm %ds", m, s%60)
	case h < 24:
		return fmt.Sprintf("%dh %dm", h, m%60)
	}
	return fmt.Sprintf("%dd %dh", h/24, h%24)
}

// everyRule is a cluster and routes on which the real engine finds one finding
// of every rule it has today: node1 is right (its CIDR and a Service's VIP),
// node2 announces nothing (its session is down), node3 announces node1's CIDR, a
// CIDR allocated to no node, a default route and VIPs it should not, the deleted
// node4's machine still announces, node5's Node and CiliumNode disagree (IPAM
// kubernetes), node6 is NotReady and silent. A rule the scenario does not
// trigger (one added later) gets a finding constructed for it, so that every
// rule of validator.Rules() has exactly one row.
func everyRule(t *testing.T) *scenario {
	t.Helper()
	now := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	sc := &scenario{now: now, cluster: &validator.Cluster{
		IPAM: validator.IPAM{Mode: validator.IPAMKubernetes, ModeSource: "cilium-config",
			PodRanges: []netip.Prefix{pfx("10.244.0.0/16")}},
		LBPools: []netip.Prefix{pfx("192.0.2.0/24")},
		Deleted: []validator.DeletedNode{{Name: "node4", Addresses: []netip.Addr{ip("10.0.0.14")},
			CIDRs: []netip.Prefix{pfx("10.244.4.0/24")}, DeletedAt: now.Add(-3 * time.Hour)}},
		ServicesKnown: true,
	}}
	// LoadBalancer Services: web (Local, ready on node1) is announced by node1 and node3, batch has no ready
	// endpoint but node3 announces it, api is ready on node2 and selected for announcement but announced by none.
	for _, svc := range []struct {
		name, vip, policy, node string
		ready                   bool
	}{
		{"web", "192.0.2.20", "Local", "node1", true}, {"batch", "192.0.2.30", "Cluster", "node5", false},
		{"api", "192.0.2.40", "Cluster", "node2", true},
	} {
		sc.cluster.Services = append(sc.cluster.Services, validator.Service{Namespace: "default", Name: svc.name,
			Type: "LoadBalancer", VIPs: []netip.Addr{ip(svc.vip)}, ExternalTrafficPolicy: svc.policy,
			Endpoints: []validator.Endpoint{{Addresses: []netip.Addr{ip("10.244.1.10")}, NodeName: svc.node,
				Ready: svc.ready}}, Announced: true, AnnouncedBy: "CiliumBGPAdvertisement lb-vips"})
	}
	for _, n := range []struct {
		name, addr, node, cilium string
		ready                    bool
	}{
		{"node1", "10.0.0.11", "10.244.1.0/24", "10.244.1.0/24", true},
		{"node2", "10.0.0.12", "10.244.2.0/24", "10.244.2.0/24", true},
		{"node3", "10.0.0.13", "10.244.3.0/24", "10.244.3.0/24", true},
		{"node5", "10.0.0.15", "10.244.50.0/24", "10.244.5.0/24", true},
		{"node6", "10.0.0.16", "10.244.6.0/24", "10.244.6.0/24", false},
	} {
		addrs := []netip.Addr{ip(n.addr)}
		sc.cluster.Nodes = append(sc.cluster.Nodes, validator.Node{Name: n.name, Addresses: addrs,
			PodCIDRs: []netip.Prefix{pfx(n.node)}, Ready: n.ready})
		sc.cluster.CiliumNodes = append(sc.cluster.CiliumNodes, validator.CiliumNode{Name: n.name, Addresses: addrs,
			PodCIDRs: []netip.Prefix{pfx(n.cilium)}})
	}
	perPeer := map[string]int{}
	for _, r := range []struct{ prefix, nextHop string }{
		{"10.244.1.0/24", "10.0.0.11"}, {"10.244.3.0/24", "10.0.0.13"}, {"10.244.1.0/24", "10.0.0.13"},
		{"10.244.99.0/24", "10.0.0.13"}, {"0.0.0.0/0", "10.0.0.13"}, {"10.244.4.0/24", "10.0.0.14"},
		{"10.244.5.0/24", "10.0.0.15"}, {"192.0.2.20/32", "10.0.0.11"}, {"192.0.2.20/32", "10.0.0.13"},
		{"192.0.2.30/32", "10.0.0.13"}, {"192.0.2.99/32", "10.0.0.13"},
	} {
		peer := "127.0.1." + r.nextHop[len("10.0.0."):]
		perPeer[peer]++
		sc.routes = append(sc.routes, validator.Route{Prefix: pfx(r.prefix),
			Attributes: &validator.Attributes{NextHop: ip(r.nextHop), Peer: ip(peer), PeerASN: 65001, ASPath: []uint32{65001}}})
	}
	for _, p := range []struct {
		addr, state string
		since       time.Duration
	}{
		{"127.0.1.11", "established", 26 * time.Hour}, {"127.0.1.12", "active", 4*time.Minute + 10*time.Second},
		{"127.0.1.13", "established", 26 * time.Hour}, {"127.0.1.14", "established", 5 * time.Hour},
		{"127.0.1.15", "established", 30 * time.Second}, {"127.0.1.16", "idle", 3 * time.Hour},
	} {
		pi := Peer{Address: ip(p.addr), ASN: 65001, RouterID: "10.0.0." + p.addr[len("127.0.1."):],
			State: p.state, Since: now.Add(-p.since), Routes: perPeer[p.addr]}
		if p.state == "established" {
			pi.EndOfRIB = []string{"ipv4-unicast"}
		}
		pi.Received = int64(pi.Routes)
		if p.addr == "127.0.1.15" { // sent two paths GoBGP treated as withdrawn
			pi.Received, pi.Dropped = pi.Received+2, map[string]int64{"treat-as-withdraw": 2}
		}
		sc.peers = append(sc.peers, pi)
	}

	first, count := map[validator.RuleID]validator.Finding{}, map[validator.RuleID]int{}
	for _, f := range validator.Validate(sc.cluster, sc.routes, validator.PolicyView{}, validator.Options{Now: now}).Findings {
		if count[f.Rule]++; count[f.Rule] == 1 {
			first[f.Rule] = f
		}
	}
	for id, n := range count {
		if n > 1 {
			t.Logf("rule %s: the engine found %d findings; the page is shown the first", id, n)
		}
	}
	for i, r := range validator.Rules() {
		f, ok := first[r.ID()]
		if !ok {
			t.Logf("rule %s: the scenario does not trigger it in the engine; its finding is constructed", r.ID())
			spec, _ := validator.Spec(r.ID())
			f = validator.Finding{Rule: r.ID(), Severity: spec.Severity, Prefix: pfx(fmt.Sprintf("198.51.100.%d/32", i)),
				Message: "Constructed for the status page test: " + spec.Summary,
				Hint:    "No hint: this finding was constructed for rule " + string(r.ID()) + "."}
		}
		d := time.Duration(i) * time.Minute
		if i < len(findingAges) {
			d = findingAges[i]
		}
		tr := monitor.Tracked{Finding: f, FirstSeen: now.Add(-d), Firing: i != 1}
		if tr.Firing {
			tr.FiringSince = tr.FirstSeen.Add(d / 2)
		}
		sc.findings = append(sc.findings, tr)
	}
	sc.nodes = map[string]string{"node1": "ok", "node2": "missing", "node3": "wrong", "node5": "ok", "node6": "ok"}
	sc.chips = map[string]string{"node1 10.244.1.0/24": "ok", "node1 192.0.2.20/32": "ok", "node3 192.0.2.20/32": "wrong",
		"node3 192.0.2.99/32": "wrong", "node3 192.0.2.30/32": "wrong", "node2 10.244.2.0/24": "missing",
		"node3 10.244.3.0/24": "ok", "node3 10.244.1.0/24": "wrong", "node3 10.244.99.0/24": "wrong",
		"node3 0.0.0.0/0": "wrong", "node5 10.244.5.0/24": "ok", "node6 10.244.6.0/24": "unannounced"}
	return sc
}

// allClear is a healthy cluster: every node announces its CIDR, no finding.
func allClear() *scenario {
	sc := &scenario{now: time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC), cluster: &validator.Cluster{
		IPAM:  validator.IPAM{Mode: validator.IPAMClusterPool, PodRanges: []netip.Prefix{pfx("10.244.0.0/16")}},
		Nodes: []validator.Node{{Name: "node1", Addresses: []netip.Addr{ip("10.0.0.11")}, Ready: true}},
		CiliumNodes: []validator.CiliumNode{{Name: "node1", Addresses: []netip.Addr{ip("10.0.0.11")},
			PodCIDRs: []netip.Prefix{pfx("10.244.1.0/24")}}}},
		routes: []validator.Route{{Prefix: pfx("10.244.1.0/24"), Attributes: &validator.Attributes{NextHop: ip("10.0.0.11"),
			Peer: ip("127.0.1.11")}}},
		peers: []Peer{{Address: ip("127.0.1.11"), ASN: 65001, State: "established", Routes: 1}},
		nodes: map[string]string{"node1": "ok"}, chips: map[string]string{"node1 10.244.1.0/24": "ok"},
	}
	sc.findings = []monitor.Tracked{}
	return sc
}

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }
func ip(s string) netip.Addr    { return netip.MustParseAddr(s) }
