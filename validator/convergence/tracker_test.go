package convergence

import (
	"net/netip"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

var t0 = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

func node(name string, ready bool) validator.Node { return validator.Node{Name: name, Ready: ready} }

func cnode(name, cidr string) validator.CiliumNode {
	return validator.CiliumNode{Name: name, PodCIDRs: []netip.Prefix{netip.MustParsePrefix(cidr)}}
}

// cluster is two nodes in cluster-pool IPAM, each given an AS by Cilium's BGP
// configuration, and a Service whose VIP Cilium announces with the given
// traffic policy and endpoints on the given nodes.
func cluster(policy string, nodes []validator.Node, endpointsOn ...string) *validator.Cluster {
	c := &validator.Cluster{Nodes: nodes, IPAM: validator.IPAM{Mode: validator.IPAMClusterPool}, ServicesKnown: true,
		NodeASNs: map[string][]uint32{}}
	for _, n := range nodes {
		c.NodeASNs[n.Name] = []uint32{65010}
		c.CiliumNodes = append(c.CiliumNodes, cnode(n.Name, map[string]string{"a": "10.244.1.0/24",
			"b": "10.244.2.0/24", "c": "10.244.3.0/24"}[n.Name]))
	}
	svc := validator.Service{Namespace: "ns", Name: "web", Type: "LoadBalancer", Announced: true,
		VIPs: []netip.Addr{netip.MustParseAddr("192.0.2.10")}, ExternalTrafficPolicy: policy}
	for _, n := range endpointsOn {
		svc.Endpoints = append(svc.Endpoints, validator.Endpoint{NodeName: n, Ready: true})
	}
	c.Services = []validator.Service{svc}
	return c
}

func key(kind Kind, p, node string) Key {
	return Key{Kind: kind, Prefix: netip.MustParsePrefix(p), Node: node}
}

// routes is a set of announced keys.
type routes map[Key]bool

func (r routes) present(k Key) bool { return r[k] }

func TestTracker(t *testing.T) {
	a1, b2, c3 := key(PodCIDR, "10.244.1.0/24", "a"), key(PodCIDR, "10.244.2.0/24", "b"), key(PodCIDR, "10.244.3.0/24", "c")
	vipA, vipB := key(VIP, "192.0.2.10/32", "a"), key(VIP, "192.0.2.10/32", "b")
	ab := []validator.Node{node("a", true), node("b", true)}
	for _, tc := range []struct {
		name   string
		before *validator.Cluster
		after  *validator.Cluster
		routes routes      // announced when the cluster change is seen
		then   routes      // announced when the routes are next observed
		want   []Completed // completed then (durations from the 2s the routes took)
		left   []Direction // directions still pending, in key order
	}{
		{name: "node deleted: its CIDR and its VIP path withdrawn",
			before: cluster("Cluster", ab), after: cluster("Cluster", ab[:1]),
			routes: routes{a1: true, b2: true, vipA: true, vipB: true}, then: routes{a1: true, vipA: true},
			want: []Completed{done(b2, Withdraw), done(vipB, Withdraw)}},
		{name: "withdrawal not yet made stays pending",
			before: cluster("Cluster", ab), after: cluster("Cluster", ab[:1]),
			routes: routes{a1: true, b2: true, vipA: true, vipB: true}, then: routes{a1: true, b2: true, vipA: true},
			want: []Completed{done(vipB, Withdraw)}, left: []Direction{Withdraw}},
		{name: "new Ready node: CIDR and VIP announced",
			before: cluster("Cluster", ab), after: cluster("Cluster", append(ab[:2:2], node("c", true))),
			routes: routes{a1: true, b2: true, vipA: true, vipB: true},
			then:   routes{a1: true, b2: true, c3: true, vipA: true, vipB: true, key(VIP, "192.0.2.10/32", "c"): true},
			want:   []Completed{done(c3, Announce), done(key(VIP, "192.0.2.10/32", "c"), Announce)}},
		{name: "new NotReady node: nothing expected yet",
			before: cluster("Cluster", ab), after: cluster("Cluster", append(ab[:2:2], node("c", false))),
			routes: routes{a1: true, b2: true}, then: routes{a1: true, b2: true}},
		{name: "node turns NotReady: Cilium keeps announcing, nothing to withdraw",
			before: cluster("Cluster", ab), after: cluster("Cluster", []validator.Node{node("a", true), node("b", false)}),
			routes: routes{a1: true, b2: true, vipA: true, vipB: true}, then: routes{a1: true, b2: true, vipA: true, vipB: true}},
		{name: "eTP Local: first ready endpoint, then announced by its node only",
			before: cluster("Local", ab), after: cluster("Local", ab, "b"),
			routes: routes{a1: true, b2: true}, then: routes{a1: true, b2: true, vipB: true},
			want: []Completed{done(vipB, Announce)}},
		{name: "eTP Local: last ready endpoint gone, VIP withdrawn",
			before: cluster("Local", ab, "a"), after: cluster("Local", ab),
			routes: routes{a1: true, b2: true, vipA: true}, then: routes{a1: true, b2: true},
			want: []Completed{done(vipA, Withdraw)}},
		{name: "already announced when the change is seen: not measured",
			before: cluster("Local", ab), after: cluster("Local", ab, "a"),
			routes: routes{vipA: true}, then: routes{vipA: true}},
		{name: "announcement pending",
			before: cluster("Local", ab), after: cluster("Local", ab, "a"),
			routes: routes{}, then: routes{}, left: []Direction{Announce}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(10)
			tr.Cluster(Expect(tc.before, nil), t0.Add(-time.Minute), tc.routes.present)
			tr.Cluster(Expect(tc.after, nil), t0, tc.routes.present)
			got := tr.Observe(tc.then.present, t0.Add(2*time.Second))
			if len(got) != len(tc.want) {
				t.Fatalf("completed %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("completed[%d] = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
			var left []Direction
			for _, p := range tr.Pending() {
				left = append(left, p.Direction)
			}
			if len(left) != len(tc.left) {
				t.Fatalf("pending %v, want %v", tr.Pending(), tc.left)
			}
		})
	}
}

func done(k Key, d Direction) Completed {
	return Completed{Change: Change{Key: k, Direction: d, Since: t0}, At: t0.Add(2 * time.Second), Duration: 2 * time.Second}
}

func TestTrackerEdges(t *testing.T) {
	k := key(PodCIDR, "10.244.2.0/24", "b")
	ab := []validator.Node{node("a", true), node("b", true)}
	tr := NewTracker(1)

	up := routes{k: true, key(VIP, "192.0.2.10/32", "b"): true}
	tr.Cluster(Expect(cluster("Cluster", ab), nil), t0, up.present) // baseline: nothing pending
	if p := tr.Pending(); len(p) != 0 {
		t.Fatalf("baseline made changes pending: %v", p)
	}
	tr.Cluster(Expect(cluster("Cluster", ab[:1]), nil), t0, up.present)
	// The route went before the cluster change was seen (our clock): 0, never negative.
	if got := tr.Observe(routes{}.present, t0.Add(-time.Second)); len(got) != 2 || got[0].Duration != 0 {
		t.Fatalf("completed %v, want two of 0s", got)
	}
	// A node re-added before its withdrawal completed cancels the withdrawal.
	tr.Cluster(Expect(cluster("Cluster", ab), nil), t0, up.present)
	tr.Cluster(Expect(cluster("Cluster", ab[:1]), nil), t0, up.present)
	tr.Cluster(Expect(cluster("Cluster", ab), nil), t0, up.present)
	if p := tr.Pending(); len(p) != 0 {
		t.Fatalf("a change the cluster took back stays pending: %v", p)
	}
	tr.Reset()
	tr.Cluster(Expect(cluster("Cluster", ab[:1]), nil), t0, up.present)
	if p := tr.Pending(); len(p) != 0 {
		t.Fatalf("after Reset the first cluster is a new baseline, got %v", p)
	}
	if h := tr.History(); len(h) != 1 {
		t.Fatalf("history keeps %d, want 1", len(h))
	}
}

// TestTrackerGone: a deleted node's routes beyond its allocations (another
// node's CIDR it kept announcing) are withdrawals to wait for too.
func TestTrackerGone(t *testing.T) {
	k := key(PodCIDR, "10.244.3.0/24", "d")
	tr := NewTracker(10)
	tr.Gone([]Key{k}, t0) // before the baseline: nothing
	if p := tr.Pending(); len(p) != 0 {
		t.Fatalf("pending before the baseline: %v", p)
	}
	up := routes{k: true}
	tr.Cluster(Expect(cluster("Cluster", nil), nil), t0, up.present)
	tr.Gone([]Key{k, k}, t0)
	if p := tr.Pending(); len(p) != 1 || p[0].Direction != Withdraw {
		t.Fatalf("pending %v, want one withdrawal", p)
	}
	if got := tr.Observe(up.present, t0.Add(time.Second)); len(got) != 0 {
		t.Fatalf("completed %v while the route stays", got)
	}
	if got := tr.Observe(routes{}.present, t0.Add(5*time.Second)); len(got) != 1 || got[0].Duration != 5*time.Second {
		t.Fatalf("completed %v, want one of 5s", got)
	}
}

// TestExpectScope: a node outside the collector's scope (another rack) is
// expected to announce nothing this collector could see.
func TestExpectScope(t *testing.T) {
	c := cluster("Cluster", []validator.Node{node("a", true), node("b", true)})
	c.Nodes[1].Labels = map[string]string{"rack": "r2"}
	opts := validator.Options{Scope: map[string]string{"rack": "r2"}}
	e := Expect(c, opts.InScope)
	want := []Key{key(PodCIDR, "10.244.2.0/24", "b"), key(VIP, "192.0.2.10/32", "b")}
	got := sortedKeys(e.Announce)
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("expected %v, want %v", got, want)
	}
}

// TestExpectBGPNodesOnly: a node Cilium's BGP configuration does not select
// announces nothing by design, so none of its pod CIDRs is waited for.
func TestExpectBGPNodesOnly(t *testing.T) {
	c := cluster("Cluster", []validator.Node{node("a", true), node("b", true)})
	delete(c.NodeASNs, "b")
	got := sortedKeys(Expect(c, nil).Announce)
	want := []Key{key(PodCIDR, "10.244.1.0/24", "a"), key(VIP, "192.0.2.10/32", "a")}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("expected %v, want %v", got, want)
	}
}

// TestExpectVIPOfAnyNode: while Cilium's BGP configuration names no nodes,
// a VIP is expected of no node in particular (announced once any node
// announces it), so a node that does not run BGP never looks slow.
func TestExpectVIPOfAnyNode(t *testing.T) {
	c := cluster("Cluster", []validator.Node{node("a", true), node("b", false)})
	c.NodeASNs = nil
	e := Expect(c, nil)
	vip := key(VIP, "192.0.2.10/32", "")
	if !e.Announce[vip] || !e.Keep[vip] || e.Announce[key(VIP, "192.0.2.10/32", "a")] {
		t.Fatalf("expected %v, keep %v: want the VIP of any node", sortedKeys(e.Announce), sortedKeys(e.Keep))
	}
	tr := NewTracker(10)
	tr.Cluster(Expected{Announce: map[Key]bool{}, Keep: map[Key]bool{}}, t0, routes{}.present)
	tr.Cluster(e, t0, routes{}.present)
	got := tr.Observe(routes{vip: true}.present, t0.Add(time.Second))
	if len(got) != 1 || got[0].Key != vip || got[0].Direction != Announce {
		t.Errorf("completed %+v, want the VIP announced", got)
	}
}
