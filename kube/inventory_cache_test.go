package kube

import (
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/routewarden/routewarden/validator"
)

// TestClusterCachedPerVersion drives an Inventory without an API server and
// proves Cluster translates the objects once per version: the same version
// gives the cached translation (the same Nodes array, nothing decoded again),
// every change (an informer event, a set promoted after an outage, the VIP
// resources watched) rebuilds it, and tombstones that expire without a
// version change still disappear from Deleted.
func TestClusterCachedPerVersion(t *testing.T) {
	inv := offlineInventory(t, InventoryOptions{TombstoneTTL: time.Minute})
	node, set := testNode, testNodeSet
	promote := func(s *informerSet) { inv.pending = s; inv.promote(s) }
	released := 0
	inv.release = func() { released++ }
	start := time.Now()
	var prev *validator.Cluster
	for _, tc := range []struct {
		name     string
		change   func()
		at       time.Duration // after start
		rebuilt  bool
		nodes    []string
		deleted  []string
		services bool
		released int // memory released after a promoted set's first translation (informer_set.go), so far
	}{
		{name: "first informers synced", change: func() { promote(set(node("node1", "10.0.0.11"))) },
			rebuilt: true, nodes: []string{"node1"}, released: 1},
		{name: "nothing changed", nodes: []string{"node1"}, released: 1},
		{name: "a caller modified its Deleted", change: func() { prev.Deleted = append(prev.Deleted, validator.DeletedNode{Name: "x"}) },
			nodes: []string{"node1"}, released: 1},
		{name: "a node added", change: func() { inv.upsert(inv.live, gvrNodes, node("node2", "10.0.0.12")) },
			rebuilt: true, nodes: []string{"node1", "node2"}, released: 1},
		{name: "a node deleted", change: func() { inv.remove(inv.live, gvrNodes, node("node2", "10.0.0.12")) },
			rebuilt: true, nodes: []string{"node1"}, deleted: []string{"node2"}, released: 1},
		{name: "nothing changed, tombstone young", at: 30 * time.Second, nodes: []string{"node1"}, deleted: []string{"node2"},
			released: 1},
		{name: "nothing changed, tombstone expired", at: 2 * time.Minute, nodes: []string{"node1"}, released: 1},
		{name: "a pending set's event", change: func() {
			inv.pending = set()
			inv.upsert(inv.pending, gvrNodes, node("node9", "10.0.0.19"))
		}, at: 2 * time.Minute, nodes: []string{"node1"}, released: 1},
		{name: "informers replaced after an outage", at: 2 * time.Minute,
			change:  func() { promote(set(node("node1", "10.0.0.11"), node("node3", "10.0.0.13"))) },
			rebuilt: true, nodes: []string{"node1", "node3"}, released: 2},
		{name: "Services watched", at: 2 * time.Minute, change: func() { inv.vipGVRs = []schema.GroupVersionResource{gvrServices} },
			rebuilt: true, nodes: []string{"node1", "node3"}, services: true, released: 2},
		{name: "nothing changed at last", at: 2 * time.Minute, nodes: []string{"node1", "node3"}, services: true,
			released: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.change != nil {
				tc.change()
			}
			c, _, err := inv.Cluster(start.Add(tc.at))
			if err != nil {
				t.Fatal(err)
			}
			var nodes, deleted []string
			for _, n := range c.Nodes {
				nodes = append(nodes, n.Name)
			}
			for _, d := range c.Deleted {
				deleted = append(deleted, d.Name)
			}
			slices.Sort(nodes)
			if released != tc.released {
				t.Errorf("memory released %d times, want %d", released, tc.released)
			}
			if !slices.Equal(nodes, tc.nodes) || !slices.Equal(deleted, tc.deleted) || c.ServicesKnown != tc.services {
				t.Errorf("nodes %v, deleted %v, services %v; want %v, %v, %v", nodes, deleted, c.ServicesKnown,
					tc.nodes, tc.deleted, tc.services)
			}
			if prev != nil {
				if cached := &c.Nodes[0] == &prev.Nodes[0]; cached == tc.rebuilt {
					t.Errorf("translated again: %v, want %v", !cached, tc.rebuilt)
				}
				if c == prev {
					t.Error("the same *Cluster handed out twice")
				}
			}
			prev = c
		})
	}
}
