package monitor

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

func TestExpectedPeers(t *testing.T) {
	addr := netip.MustParseAddr
	node := func(name, ip string, ready bool) validator.Node {
		return validator.Node{Name: name, Addresses: []netip.Addr{addr(ip)}, Ready: ready}
	}
	cn := func(name string, ips ...string) validator.CiliumNode {
		c := validator.CiliumNode{Name: name}
		for _, ip := range ips {
			c.Addresses = append(c.Addresses, addr(ip))
		}
		return c
	}
	ranges := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24"), netip.MustParsePrefix("fd00::/64")}
	tests := []struct {
		name   string
		nodes  []validator.Node
		cns    []validator.CiliumNode
		ranges []netip.Prefix
		want   string
	}{
		{name: "ready and managed", nodes: []validator.Node{node("b", "10.0.0.2", true), node("a", "10.0.0.1", true)},
			cns: []validator.CiliumNode{cn("a", "10.0.0.1"), cn("b", "10.0.0.2")}, ranges: ranges,
			want: "[[10.0.0.1] [10.0.0.2]]"},
		{name: "not ready", nodes: []validator.Node{node("a", "10.0.0.1", false)},
			cns: []validator.CiliumNode{cn("a", "10.0.0.1")}, ranges: ranges, want: "[]"},
		{name: "no CiliumNode: not managed by Cilium", nodes: []validator.Node{node("a", "10.0.0.1", true)},
			ranges: ranges, want: "[]"},
		{name: "address outside every range", nodes: []validator.Node{node("a", "10.9.0.1", true)},
			cns: []validator.CiliumNode{cn("a", "10.9.0.1")}, ranges: ranges, want: "[]"},
		{name: "dual-stack: either address", nodes: []validator.Node{node("a", "10.0.0.1", true)},
			cns: []validator.CiliumNode{cn("a", "10.0.0.1", "fd00::1")}, ranges: ranges,
			want: "[[10.0.0.1 fd00::1]]"},
		{name: "no dynamic ranges", nodes: []validator.Node{node("a", "10.0.0.1", true)},
			cns: []validator.CiliumNode{cn("a", "10.0.0.1")}, want: "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ExpectedPeers(&validator.Cluster{Nodes: tt.nodes, CiliumNodes: tt.cns}, tt.ranges)
			if s := fmt.Sprint(got); s != tt.want && !(len(got) == 0 && tt.want == "[]") {
				t.Errorf("ExpectedPeers = %s, want %s", s, tt.want)
			}
		})
	}
}

// fakePeerWarm has sent End-of-RIB from the addresses in eor.
type fakePeerWarm struct {
	ranges []netip.Prefix
	eor    []netip.Addr
}

func (f *fakePeerWarm) WarmedUp() bool                { return false }
func (f *fakePeerWarm) DynamicRanges() []netip.Prefix { return f.ranges }
func (f *fakePeerWarm) WarmedUpPeers(groups [][]netip.Addr) bool {
	for _, g := range groups {
		if !slices.ContainsFunc(g, func(a netip.Addr) bool { return slices.Contains(f.eor, a) }) {
			return false
		}
	}
	return len(groups) > 0
}

// With dynamic neighbors, warm-up ends when both nodes of the inventory have
// sent End-of-RIB, long before the timeout, and does not come back when a
// node that has not peered yet joins.
func TestWarmupEndsFromInventory(t *testing.T) {
	routes, cluster := world()
	now := time.Unix(1_000_000, 0)
	warm := &fakePeerWarm{ranges: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24")}}
	l := New(routes, cluster, warm, Options{Now: func() time.Time { return now }, WarmupTimeout: time.Hour})
	l.started = now
	steps := []struct {
		eor     []string
		addNode bool
		want    bool // warming up
	}{
		{want: true},
		{eor: []string{"10.0.0.11"}, want: true},
		{eor: []string{"10.0.0.11", "10.0.0.12"}, want: false},
		{eor: []string{"10.0.0.11", "10.0.0.12"}, addNode: true, want: false},
	}
	for i, st := range steps {
		warm.eor = nil
		for _, a := range st.eor {
			warm.eor = append(warm.eor, netip.MustParseAddr(a))
		}
		if st.addNode {
			ip := netip.MustParseAddr("10.0.0.13")
			cluster.c.Nodes = append(cluster.c.Nodes, validator.Node{Name: "node3", Addresses: []netip.Addr{ip}, Ready: true})
			cluster.c.CiliumNodes = append(cluster.c.CiliumNodes, validator.CiliumNode{Name: "node3", Addresses: []netip.Addr{ip}})
		}
		now = now.Add(time.Second)
		l.runOnce()
		if got := l.State().WarmingUp; got != st.want {
			t.Fatalf("step %d (End-of-RIB from %v): warming up %v, want %v", i, st.eor, got, st.want)
		}
	}
}
