// Package demo replays the incident routewarden exists for (cilium/cilium#18852)
// on 127.0.0.1: an in-memory cluster, four real GoBGP speakers playing Cilium
// nodes, and a script that changes both while routewarden watches.
package demo

import (
	"context"
	"net/netip"
	"sync"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// Cluster is an in-memory cluster: the demo's stand-in for the informers.
type Cluster struct {
	mu      sync.Mutex
	c       validator.Cluster
	version uint64
	changed chan struct{}
}

// NewCluster starts from c.
func NewCluster(c validator.Cluster) *Cluster {
	return &Cluster{c: c, changed: make(chan struct{}, 1)}
}

// Cluster implements monitor.ClusterSource as kube's Inventory does: a
// shallow copy whose slices are shared with the callers, who must not modify
// them (changes here replace the slices instead of writing into them), and
// the tombstones copied.
func (m *Cluster) Cluster(time.Time) (*validator.Cluster, uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.c
	c.Deleted = append([]validator.DeletedNode(nil), m.c.Deleted...)
	return &c, m.version, nil
}

// Changed implements monitor.ClusterSource.
func (m *Cluster) Changed() <-chan struct{} { return m.changed }

// InventoryStatus implements monitor.ClusterSource: always in sync.
func (m *Cluster) InventoryStatus() validator.InventoryStatus {
	return validator.InventoryStatus{Synced: true, Available: true}
}

// Run waits for ctx: the in-memory cluster has nothing to watch.
func (m *Cluster) Run(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

// DeleteNode removes a Node and its CiliumNode, leaving a tombstone.
func (m *Cluster) DeleteNode(name string, at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := validator.DeletedNode{Name: name, DeletedAt: at}
	for i, n := range m.c.Nodes {
		if n.Name == name {
			d.Addresses, d.CIDRs = append(d.Addresses, n.Addresses...), append(d.CIDRs, n.PodCIDRs...)
			m.c.Nodes = append(m.c.Nodes[:i:i], m.c.Nodes[i+1:]...)
			break
		}
	}
	for i, cn := range m.c.CiliumNodes {
		if cn.Name == name {
			d.CIDRs = append(d.CIDRs, cn.PodCIDRs...)
			m.c.CiliumNodes = append(m.c.CiliumNodes[:i:i], m.c.CiliumNodes[i+1:]...)
			break
		}
	}
	m.c.Deleted = append(m.c.Deleted, d)
	m.version++
	select {
	case m.changed <- struct{}{}:
	default:
	}
}

// node is one demo node: its address, the CIDR kube-controller-manager put in
// Node.spec.podCIDRs and the one Cilium's cluster-pool IPAM allocated.
type node struct {
	name          string
	ip            netip.Addr
	k8sCIDR, cidr netip.Prefix
}

// nodes: Cilium's operator allocated every node a different CIDR than
// kube-controller-manager did, as in the incident.
var nodes = []node{
	{"node1", netip.MustParseAddr("10.0.0.11"), netip.MustParsePrefix("10.244.0.0/24"), netip.MustParsePrefix("10.244.1.0/24")},
	{"node2", netip.MustParseAddr("10.0.0.12"), netip.MustParsePrefix("10.244.1.0/24"), netip.MustParsePrefix("10.244.2.0/24")},
	{"node3", netip.MustParseAddr("10.0.0.13"), netip.MustParsePrefix("10.244.2.0/24"), netip.MustParsePrefix("10.244.3.0/24")},
	{"node4", netip.MustParseAddr("10.0.0.14"), netip.MustParsePrefix("10.244.3.0/24"), netip.MustParsePrefix("10.244.0.0/24")},
}

// InitialCluster is the demo's cluster before anything happens.
func InitialCluster() validator.Cluster {
	c := validator.Cluster{IPAM: validator.IPAM{Mode: validator.IPAMClusterPool, ModeSource: "demo",
		PodRanges: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}}}
	for _, n := range nodes {
		c.Nodes = append(c.Nodes, validator.Node{Name: n.name, Addresses: []netip.Addr{n.ip},
			PodCIDRs: []netip.Prefix{n.k8sCIDR}, Ready: true, Labels: map[string]string{"kubernetes.io/os": "linux"}})
		c.CiliumNodes = append(c.CiliumNodes, validator.CiliumNode{Name: n.name, Addresses: []netip.Addr{n.ip},
			PodCIDRs: []netip.Prefix{n.cidr}})
	}
	return c
}
