package lint

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/cilium"
	"github.com/routewarden/routewarden/validator"
)

var collector = Collector{Addresses: []netip.Addr{netip.MustParseAddr("10.0.0.250")}, ASN: 65000,
	GraceWindow: 120 * time.Second, GracefulRestart: true, Where: "rw.yaml"}

func v2(peerAddr string, peerASN uint32, peerConfig string) clusterConfig {
	c := clusterConfig{Pos: pos("bgp.yaml:1")}
	c.Object.Metadata.Name = "tor"
	addr := cilium.IP{Addr: netip.MustParseAddr(peerAddr)}
	peer := cilium.BGPPeer{Name: "rw", PeerAddress: &addr, PeerASN: peerASN}
	if peerConfig != "" {
		peer.PeerConfigRef = &struct {
			Name string `yaml:"name"`
		}{Name: peerConfig}
	}
	c.Object.Spec.BGPInstances = []cilium.BGPInstance{{Name: "i1", LocalASN: 65010, Peers: []cilium.BGPPeer{peer}}}
	return c
}

func peerCfg(families ...cilium.BGPFamily) peerConfig {
	return namedPeerCfg("bgp.yaml:20", "rw", families...)
}

func namedPeerCfg(where, name string, families ...cilium.BGPFamily) peerConfig {
	pc := peerConfig{Pos: pos(where)}
	pc.Object.Metadata.Name = name
	pc.Object.Spec.Families = families
	return pc
}

// advert is a CiliumBGPAdvertisement read at where.
func advert(where, name string, labels map[string]string, entries ...cilium.BGPAdvertisementEntry) advertisement {
	a := advertisement{Pos: pos(where)}
	a.Object.Metadata = cilium.Meta{Name: name, Labels: labels}
	a.Object.Spec.Advertisements = entries
	return a
}

// pos is "file:line" as a cilium.Pos.
func pos(where string) cilium.Pos {
	file, line, _ := strings.Cut(where, ":")
	n, _ := strconv.Atoi(line)
	return cilium.Pos{File: file, Line: n}
}

// objects gathers Cilium objects, Nodes and Services as the cilium model holds them.
func objects(objs ...any) *cilium.Objects {
	o := &cilium.Objects{}
	for _, x := range objs {
		switch x := x.(type) {
		case clusterConfig:
			o.BGPClusterCfgs = append(o.BGPClusterCfgs, x)
		case peerConfig:
			o.BGPPeerCfgs = append(o.BGPPeerCfgs, x)
		case advertisement:
			o.BGPAdverts = append(o.BGPAdverts, x)
		case peeringPolicy:
			o.BGPPeeringPols = append(o.BGPPeeringPols, x)
		case cilium.Node:
			o.Nodes = append(o.Nodes, cilium.Sourced[cilium.Node]{Object: x})
		case cilium.Service:
			o.Services = append(o.Services, cilium.Sourced[cilium.Service]{Object: x})
		default:
			panic(fmt.Sprintf("objects: a %T", x))
		}
	}
	return o
}

var (
	podAds   = &cilium.LabelSelector{MatchLabels: map[string]string{"ads": "pods"}}
	podCIDR  = advert("", "pods", map[string]string{"ads": "pods"}, cilium.BGPAdvertisementEntry{AdvertisementType: "PodCIDR"})
	poolAds  = advert("", "pools", map[string]string{"ads": "pods"}, cilium.BGPAdvertisementEntry{AdvertisementType: "CiliumPodIPPool"})
	ipv4Pods = cilium.BGPFamily{AFI: "ipv4", SAFI: "unicast", Advertisements: podAds}
)

func TestCheck(t *testing.T) {
	cases := []struct {
		name string
		in   Input
		want []string // substrings, one per problem, in order
	}{
		{name: "healthy v2", in: Input{Collector: collector, IPAMMode: validator.IPAMClusterPool,
			Cilium: objects(v2("10.0.0.250", 65000, "rw"), peerCfg(ipv4Pods), podCIDR)}},
		{name: "collector is not a peer", in: Input{Collector: collector,
			Cilium: objects(v2("10.0.0.1", 65000, "rw"))},
			want: []string{`critical: CiliumBGPClusterConfig tor: spec.bgpInstances[0].peers: BGP instance "i1"`}},
		{name: "ASN mismatch", in: Input{Collector: collector,
			Cilium: objects(v2("10.0.0.250", 65001, "rw"), peerCfg(ipv4Pods))},
			want: []string{"peers[0].peerASN: peer 10.0.0.250 (routewarden) has peerASN 65001, but routewarden's bgp.asn is 65000"}},
		{name: "no peerConfigRef", in: Input{Collector: collector, Cilium: objects(v2("10.0.0.250", 65000, ""))},
			want: []string{"no peerConfigRef"}},
		{name: "family without advertisements", in: Input{Collector: collector, IPAMMode: validator.IPAMClusterPool,
			Cilium: objects(v2("10.0.0.250", 65000, "rw"), peerCfg(cilium.BGPFamily{AFI: "ipv4", SAFI: "unicast"}), podCIDR)},
			want: []string{"spec.families[0].advertisements: ipv4/unicast has no advertisement selector"}},
		{name: "multi-pool with PodCIDR ads", in: Input{Collector: collector, IPAMMode: validator.IPAMMultiPool,
			Cilium: objects(v2("10.0.0.250", 65000, "rw"), peerCfg(ipv4Pods), podCIDR)},
			want: []string{"selects no CiliumPodIPPool advertisement: pod CIDRs are not announced (IPAM is multi-pool"}},
		{name: "multi-pool with pool ads", in: Input{Collector: collector, IPAMMode: validator.IPAMMultiPool,
			Cilium: objects(v2("10.0.0.250", 65000, "rw"), peerCfg(ipv4Pods), poolAds)}},
		{name: "ENI has no pod CIDRs", in: Input{Collector: collector, IPAMMode: "eni",
			Cilium: objects(v2("10.0.0.250", 65000, "rw"), peerCfg(ipv4Pods), podCIDR)},
			want: []string{"info: CiliumBGPPeerConfig rw: spec.families[0].advertisements: IPAM eni has no per-node pod CIDRs"}},
		{name: "v1 without exportPodCIDR", in: Input{Collector: collector, IPAMMode: validator.IPAMKubernetes,
			Cilium: objects(func() peeringPolicy {
				pp := peeringPolicy{Pos: pos("p.yaml:1")}
				pp.Object.Metadata.Name = "p"
				pp.Object.Spec.VirtualRouters = []cilium.BGPVirtualRouter{{LocalASN: 65010, Neighbors: []cilium.BGPNeighbor{
					{PeerAddress: cilium.CIDR{Prefix: netip.MustParsePrefix("10.0.0.250/32")}, PeerASN: 65000}}}}
				return pp
			}())},
			want: []string{"spec.virtualRouters[0].exportPodCIDR: exportPodCIDR is false"}},
		{name: "legacy speaker with cluster-pool", in: Input{Collector: collector, IPAMMode: validator.IPAMClusterPool,
			PodRanges: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")},
			Legacy: &cilium.LegacyConfig{Where: "cm.yaml:1", Peers: []cilium.LegacyPeer{{Address: netip.MustParseAddr("10.0.0.250"), ASN: 65000}},
				AddressPools: []cilium.LegacyPool{{Name: "lb", Prefixes: []netip.Prefix{netip.MustParsePrefix("10.244.200.0/24")}}}}},
			want: []string{"config.yaml: the legacy BGP speaker announces Node.spec.podCIDRs",
				`address-pools[0].addresses: address pool "lb" (10.244.200.0/24) overlaps the pod range`}},
		{name: "selector selects no node", in: Input{Collector: collector,
			Cilium: objects(cilium.Node{Metadata: cilium.Meta{Name: "n1", Labels: map[string]string{"rack": "r1"}}},
				func() clusterConfig {
					c := v2("10.0.0.250", 65000, "rw")
					c.Object.Spec.NodeSelector = &cilium.LabelSelector{MatchExpressions: []cilium.Requirement{{Key: "rack",
						Operator: "In", Values: []string{"r2"}}}}
					return c
				}(), peerCfg(ipv4Pods))},
			want: []string{"spec.nodeSelector: selects none of the 1 given nodes"}},
		{name: "restart time longer than the grace window", in: Input{Collector: collector,
			Cilium: objects(func() peerConfig {
				pc := namedPeerCfg("pc.yaml:1", "rw", ipv4Pods)
				secs := 300
				pc.Object.Spec.GracefulRestart = &cilium.BGPGracefulRestart{Enabled: true, RestartTimeSeconds: &secs}
				return pc
			}())},
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
