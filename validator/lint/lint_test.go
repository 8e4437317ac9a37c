package lint

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

var collector = Collector{Addresses: []netip.Addr{netip.MustParseAddr("10.0.0.250")}, ASN: 65000,
	GraceWindow: 120 * time.Second, GracefulRestart: true, Where: "rw.yaml"}

func v2(peerAddr string, peerASN uint32, peerConfig string) ClusterConfig {
	return ClusterConfig{Where: "bgp.yaml:1", Name: "tor", Instances: []Instance{{Name: "i1", LocalASN: 65010,
		Peers: []Peer{{Name: "rw", Address: netip.MustParseAddr(peerAddr), ASN: peerASN, PeerConfig: peerConfig}}}}}
}

func peerCfg(families ...Family) PeerConfig {
	return PeerConfig{Where: "bgp.yaml:20", Name: "rw", Families: families}
}

var (
	podAds   = &Selector{MatchLabels: map[string]string{"ads": "pods"}}
	podCIDR  = Advertisement{Name: "pods", Labels: map[string]string{"ads": "pods"}, Types: []string{"PodCIDR"}}
	poolAds  = Advertisement{Name: "pools", Labels: map[string]string{"ads": "pods"}, Types: []string{"CiliumPodIPPool"}}
	ipv4Pods = Family{AFI: "ipv4", SAFI: "unicast", Advertisements: podAds}
)

func TestCheck(t *testing.T) {
	cases := []struct {
		name string
		in   Input
		want []string // substrings, one per problem, in order
	}{
		{name: "healthy v2", in: Input{Collector: collector, IPAMMode: validator.IPAMClusterPool,
			ClusterConfigs: []ClusterConfig{v2("10.0.0.250", 65000, "rw")}, PeerConfigs: []PeerConfig{peerCfg(ipv4Pods)},
			Advertisements: []Advertisement{podCIDR}}},
		{name: "collector is not a peer", in: Input{Collector: collector,
			ClusterConfigs: []ClusterConfig{v2("10.0.0.1", 65000, "rw")}},
			want: []string{`critical: CiliumBGPClusterConfig tor: spec.bgpInstances[0].peers: BGP instance "i1"`}},
		{name: "ASN mismatch", in: Input{Collector: collector, ClusterConfigs: []ClusterConfig{v2("10.0.0.250", 65001, "rw")},
			PeerConfigs: []PeerConfig{peerCfg(ipv4Pods)}},
			want: []string{"peers[0].peerASN: peer 10.0.0.250 (routewarden) has peerASN 65001, but routewarden's bgp.asn is 65000"}},
		{name: "no peerConfigRef", in: Input{Collector: collector, ClusterConfigs: []ClusterConfig{v2("10.0.0.250", 65000, "")}},
			want: []string{"no peerConfigRef"}},
		{name: "family without advertisements", in: Input{Collector: collector, IPAMMode: validator.IPAMClusterPool,
			ClusterConfigs: []ClusterConfig{v2("10.0.0.250", 65000, "rw")},
			PeerConfigs:    []PeerConfig{peerCfg(Family{AFI: "ipv4", SAFI: "unicast"})}, Advertisements: []Advertisement{podCIDR}},
			want: []string{"spec.families[0].advertisements: ipv4/unicast has no advertisement selector"}},
		{name: "multi-pool with PodCIDR ads", in: Input{Collector: collector, IPAMMode: validator.IPAMMultiPool,
			ClusterConfigs: []ClusterConfig{v2("10.0.0.250", 65000, "rw")}, PeerConfigs: []PeerConfig{peerCfg(ipv4Pods)},
			Advertisements: []Advertisement{podCIDR}},
			want: []string{"selects no CiliumPodIPPool advertisement: pod CIDRs are not announced (IPAM is multi-pool"}},
		{name: "multi-pool with pool ads", in: Input{Collector: collector, IPAMMode: validator.IPAMMultiPool,
			ClusterConfigs: []ClusterConfig{v2("10.0.0.250", 65000, "rw")}, PeerConfigs: []PeerConfig{peerCfg(ipv4Pods)},
			Advertisements: []Advertisement{poolAds}}},
		{name: "ENI has no pod CIDRs", in: Input{Collector: collector, IPAMMode: "eni",
			ClusterConfigs: []ClusterConfig{v2("10.0.0.250", 65000, "rw")}, PeerConfigs: []PeerConfig{peerCfg(ipv4Pods)},
			Advertisements: []Advertisement{podCIDR}},
			want: []string{"info: CiliumBGPPeerConfig rw: spec.families[0].advertisements: IPAM eni has no per-node pod CIDRs"}},
		{name: "v1 without exportPodCIDR", in: Input{Collector: collector, IPAMMode: validator.IPAMKubernetes,
			PeeringPolicies: []PeeringPolicy{{Where: "p.yaml:1", Name: "p", VirtualRouters: []VirtualRouter{{LocalASN: 65010,
				Neighbors: []Neighbor{{Address: netip.MustParsePrefix("10.0.0.250/32"), ASN: 65000}}}}}}},
			want: []string{"spec.virtualRouters[0].exportPodCIDR: exportPodCIDR is false"}},
		{name: "legacy speaker with cluster-pool", in: Input{Collector: collector, IPAMMode: validator.IPAMClusterPool,
			PodRanges: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")},
			Legacy: &LegacyConfig{Where: "cm.yaml:1", Peers: []LegacyPeer{{Address: netip.MustParseAddr("10.0.0.250"), ASN: 65000}},
				AddressPools: []LegacyPool{{Name: "lb", Prefixes: []netip.Prefix{netip.MustParsePrefix("10.244.200.0/24")}}}}},
			want: []string{"config.yaml: the legacy BGP speaker announces Node.spec.podCIDRs",
				`address-pools[0].addresses: address pool "lb" (10.244.200.0/24) overlaps the pod range`}},
		{name: "selector selects no node", in: Input{Collector: collector,
			Nodes: []NodeLabels{{Name: "n1", Labels: map[string]string{"rack": "r1"}}},
			ClusterConfigs: []ClusterConfig{func() ClusterConfig {
				c := v2("10.0.0.250", 65000, "rw")
				c.NodeSelector = &Selector{MatchExpressions: []Requirement{{Key: "rack", Operator: "In", Values: []string{"r2"}}}}
				return c
			}()}, PeerConfigs: []PeerConfig{peerCfg(ipv4Pods)}},
			want: []string{"spec.nodeSelector: selects none of the 1 given nodes"}},
		{name: "restart time longer than the grace window", in: Input{Collector: collector,
			PeerConfigs: []PeerConfig{{Where: "pc.yaml:1", Name: "rw", Families: []Family{ipv4Pods},
				GracefulRestart: GracefulRestart{Enabled: true, RestartTime: 300 * time.Second}}}},
			want: []string{"restart time 5m0s is longer than routewarden's grace window 2m0s"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Check(tc.in)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tc.want), problemsString(got))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i].String(), w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i].String(), w)
				}
			}
		})
	}
}

func problemsString(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString("  " + p.String() + "\n")
	}
	return b.String()
}

func TestSelector(t *testing.T) {
	l := map[string]string{"a": "1", "b": "2"}
	cases := []struct {
		s    *Selector
		want bool
	}{
		{nil, true}, {&Selector{}, true},
		{&Selector{MatchLabels: map[string]string{"a": "1"}}, true},
		{&Selector{MatchLabels: map[string]string{"a": "2"}}, false},
		{&Selector{MatchExpressions: []Requirement{{Key: "c", Operator: "DoesNotExist"}}}, true},
		{&Selector{MatchExpressions: []Requirement{{Key: "a", Operator: "NotIn", Values: []string{"1"}}}}, false},
		{&Selector{MatchExpressions: []Requirement{{Key: "b", Operator: "Exists"}}}, true},
		{&Selector{MatchExpressions: []Requirement{{Key: "b", Operator: "Bogus"}}}, false},
	}
	for i, tc := range cases {
		if got := tc.s.Matches(l); got != tc.want {
			t.Errorf("case %d: got %v", i, got)
		}
	}
}
