package interop

import (
	"fmt"
	"slices"
	"strings"
)

// A scenario is a cluster of n nodes, each running Cilium's BGP control plane, that must reach a
// healthy state (no finding, exactly routes paths at routewarden), then go through steps: each a
// change to the Kubernetes objects (never to the speakers), with the findings and route count
// it must lead to.
type scenario struct {
	name    string
	ipam    string   // cilium-config's ipam; cluster-pool when empty
	n       int      // nodes 1..n run BGP (an agent each)
	nodes   string   // the nodes' manifests; nodes(n) when empty
	extra   string   // more objects: nodes that run no BGP, ...
	objects string   // the BGP objects, Services, ... (the nodes and cilium-config are added)
	viaToR  bool     // the nodes peer with FRR as the ToR, which reports them to routewarden over BMP
	scope   string   // routewarden's cluster.nodeSelector; the cluster config's, {bgp: "true"}, when empty
	gap     []string // findings of the first state where routewarden misjudges (DIFFERENCES.md); none when healthy
	routes  int
	check   func(verdict) error // more to check of the first state; nil for nothing
	steps   []step
}

type step struct {
	name     string
	change   func(l *lab)
	findings []string // "rule prefix node"
	routes   int
	check    func(verdict) error
}

const (
	attrs99  = `{communities: {standard: ["65000:99"], large: ["65001:100:100"]}, localPreference: 99}`
	attrs101 = `{communities: {standard: ["65000:101"]}, localPreference: 101}`
	vip      = "172.16.1.1"
)

// scenarios follow Cilium's own cases (pkg/bgp/test/testdata/*.txtar).
func scenarios() []scenario {
	pods := func(attrs string) string { return podCIDRAdvert("pod-cidr", attrs) }
	return []scenario{{
		name:    "pod-cidr",
		n:       1,
		objects: join(clusterConfig(torV4), peerConfig, pods("")),
		routes:  2,
	}, {
		name:    "pod-cidr-attributes",
		n:       2,
		objects: join(clusterConfig(torV4), peerConfig, pods(attrs99)),
		routes:  4,
		check:   communitiesOf("10.244.1.0/24", "65000:99"),
		steps: []step{{
			name:   "advertisement's communities changed",
			change: func(l *lab) { l.apply(pods(attrs101)) },
			routes: 4,
			check:  communitiesOf("10.244.1.0/24", "65000:101"),
		}, {
			name: "fault: the advertisement no peer config selects (label typo)",
			change: func(l *lab) {
				l.apply(strings.Replace(pods(attrs101), "advertise: bgp", "advertise: bgp-typo", 1))
			},
			findings: []string{
				"missing-route 10.244.1.0/24 node1", "missing-route 10.244.2.0/24 node2",
				"missing-route fd00:10:244:1::/64 node1", "missing-route fd00:10:244:2::/64 node2"},
		}},
	}, {
		name:    "peering-ipv6",
		n:       2,
		objects: join(clusterConfig(torV6), peerConfig, pods("")),
		routes:  4,
	}, {
		name:    "svc-adverts",
		n:       2,
		objects: join(clusterConfig(torV4), peerConfig, pods(""), echo("Cluster", 1), serviceAdvert("lb", "")),
		routes:  6,
		steps:   []step{node2Deleted},
	}, {
		// svc-adverts with pod-cidr's attributes, behind FRR as the ToR: routewarden sees the
		// nodes' sessions over BMP only, pre- and post-policy.
		name:    "bmp-tor",
		n:       2,
		viaToR:  true,
		objects: join(clusterConfig(torV4), peerConfig, pods(attrs99), echo("Cluster", 1), serviceAdvert("lb", "")),
		routes:  6,
		check:   communitiesOf("10.244.2.0/24", "65000:99"),
		steps:   []step{node2Deleted},
	}, {
		name:    "pod-ip-pool",
		ipam:    "multi-pool",
		n:       2,
		nodes:   multiPoolNodes(2),
		objects: join(clusterConfig(torV4), peerConfig, podIPPool("10.244.0.0/16"), poolAdvert),
		routes:  4,
		steps: []step{{
			name:     "fault: the pool shrunk under node2's allocated CIDR",
			change:   func(l *lab) { l.apply(podIPPool("10.244.0.0/23")) },
			findings: []string{"out-of-range 10.244.2.0/24 node2"},
			routes:   4,
		}},
	}, {
		name:    "svc-traffic-policy",
		n:       2,
		extra:   noBGP(node(3)),
		objects: join(clusterConfig(torV4), peerConfig, pods(""), echo("Local", 1), serviceAdvert("lb", "")),
		routes:  5,
		check:   announcedBy(vip+"/32", "node1"),
		steps: []step{{
			name:   "the endpoint moves to node2",
			change: func(l *lab) { l.apply(endpoints("echo", 2)) },
			routes: 5,
			check:  announcedBy(vip+"/32", "node2"),
		}, {
			// Cilium withdraws the VIP: no node announces it, and it is unreachable. node3 is
			// outside routewarden's scope (cluster.nodeSelector), but no CiliumBGPClusterConfig
			// selects it, so no collector anywhere could see it announce: missing-vip
			// (DIFFERENCES.md, "Gaps in routewarden's judgement", fixed).
			name:     "fault: the endpoint moves to node3, which runs no BGP",
			change:   func(l *lab) { l.apply(endpoints("echo", 3)) },
			findings: []string{"missing-vip " + vip + "/32 "},
			routes:   4,
			check:    announcedBy(vip + "/32"),
		}},
	}, {
		// Only nodes 1 and 2 run BGP (the cluster config selects bgp=true); routewarden's scope is
		// the whole rack. Cilium never announces node3's CIDRs, by configuration, and routewarden
		// expects no route of a node no cluster config selects (DIFFERENCES.md, gap 2, fixed).
		name:    "bgp-subset",
		n:       2,
		extra:   noBGP(node(3)),
		objects: join(clusterConfig(torV4), peerConfig, pods("")),
		scope:   "{rack: rack1}",
		routes:  4,
	}, {
		name: "svc-path-attributes",
		n:    2,
		objects: join(clusterConfig(torV4), peerConfig, pods(""), echo("Cluster", 1),
			serviceAdvert("lb-a", `{communities: {standard: ["65000:1"]}}`)),
		routes: 6,
		check:  communitiesOf(vip+"/32", "65000:1"),
		steps: []step{{
			name:   "overlapping advertisement with other communities (cilium/cilium#35721)",
			change: func(l *lab) { l.apply(serviceAdvert("lb-b", `{communities: {standard: ["65000:2"]}}`)) },
			routes: 6,
			check:  communitiesOf(vip+"/32", "65000:1", "65000:2"),
		}},
	}}
}

// node2Deleted deletes node2's Node while its agent runs on: it keeps announcing its pod CIDRs and
// the VIP, each now a stale route.
var node2Deleted = step{
	name:   "fault: node2 deleted, its agent keeps announcing",
	change: func(l *lab) { l.kubectl("delete", "node", "node2") },
	findings: []string{
		"stale-route 10.244.2.0/24 ", "stale-route 172.16.1.1/32 ", "stale-route fd00:10:244:2::/64 "},
	routes: 6,
}

// echo is the pool, Service echo (VIP 172.16.1.1, the traffic policy given) and its endpoints on
// the nodes given.
func echo(policy string, nodes ...int) string {
	return join(lbPool, lbService("echo", vip, policy), endpoints("echo", nodes...))
}

// noBGP is a node's manifest with the label that keeps it out of the cluster config.
func noBGP(manifest string) string {
	return strings.ReplaceAll(manifest, `bgp: "true"`, `bgp: "false"`)
}

// communitiesOf checks every path of prefix carries exactly the communities want.
func communitiesOf(prefix string, want ...string) func(verdict) error {
	return func(v verdict) error {
		seen := 0
		for _, r := range v.Routes {
			if r.Prefix != prefix {
				continue
			}
			seen++
			got := slices.Sorted(slices.Values(r.Communities))
			if !slices.Equal(got, want) {
				return fmt.Errorf("%s: communities %v, want %v", r, got, want)
			}
		}
		if seen == 0 {
			return fmt.Errorf("no path of %s", prefix)
		}
		return nil
	}
}

// announcedBy checks prefix is announced by exactly the nodes want.
func announcedBy(prefix string, want ...string) func(verdict) error {
	return func(v verdict) error {
		var got []string
		for _, r := range v.Routes {
			if r.Prefix == prefix {
				got = append(got, r.Node)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			return fmt.Errorf("%s announced by %v, want %v", prefix, got, want)
		}
		return nil
	}
}

func (s scenario) String() string { return fmt.Sprintf("%s (%d nodes)", s.name, s.n) }
