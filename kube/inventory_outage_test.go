package kube

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/routewarden/routewarden/internal/testkube"
	"github.com/routewarden/routewarden/internal/testprom"
	"github.com/routewarden/routewarden/internal/wait"
	"github.com/routewarden/routewarden/validator"
)

// TestInventoryAfterAnOutage stops kube-apiserver and etcd for 20 s, long
// enough for client-go's reflectors to have backed off, then starts them
// again. The inventory must stay unavailable until every watch runs again
// (never on /readyz alone), and must not wait for the reflectors' backoff.
// The same informers serve on: their watches resume, and a resource whose
// resource version the restarted API server no longer has (all but Nodes,
// which changed last) is listed again once, from the watch cache. Changes
// after the recovery are seen, deletions with their tombstones; every
// goroutine of the informers is gone once Run returns.
func TestInventoryAfterAnOutage(t *testing.T) {
	env := testkube.Start(t)
	env.InstallCiliumCRDs(t)
	env.Apply(t, filepath.Join(testkube.Repo(), "testdata", "scenarios", "dual-stack-missing-ipv6", "cluster.input.yaml"))
	cfg, err := clientcmd.BuildConfigFromFlags("", env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ignore := goleak.IgnoreCurrent()
	reg := prometheus.NewRegistry()
	inv, err := NewInventory(cfg, InventoryOptions{ProbeInterval: time.Second}, zerolog.New(zerolog.NewTestWriter(t)).With().Timestamp().Logger(), reg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inv.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		// Idle keep-alive connections to the API server may remain; nothing else.
		goleak.VerifyNone(t, ignore, goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
			goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
			goleak.IgnoreAnyFunction("golang.org/x/net/http2.(*ClientConn).readLoop"))
	}()
	wait.True(t, "the inventory to be available", time.Minute, func() bool { return inv.Status().Available })
	env.Apply(t, writeTemp(t, testkube.NodeManifest(5)))
	wait.True(t, "node5 in the inventory", time.Minute, func() bool { return hasNode(inv, "node5") })
	inv.mu.RLock()
	first := inv.live
	inv.mu.RUnlock()
	listsBefore := lists(t, reg)

	env.Stop(t)
	stopped := time.Now()
	wait.True(t, "the inventory to be unavailable", time.Minute, func() bool { return !inv.Status().Available })
	time.Sleep(20 * time.Second) // client-go's own retries would now wait several seconds each
	if c, _, err := inv.Cluster(time.Now()); err != nil || len(c.Nodes) != 5 {
		t.Fatalf("during the outage the cache should still hold the 5 nodes: %v", err)
	}

	env.Restart(t)
	restarted := time.Now()
	wait.True(t, "the inventory to be available again", 2*time.Minute, func() bool { return inv.Status().Available })
	t.Logf("available %s after the API server was back", time.Since(restarted).Round(time.Millisecond))
	inv.mu.RLock()
	same := inv.live == first
	for _, gvr := range inv.gvrs {
		if f := inv.live.feeds[gvr]; f == nil || !f.watched.After(stopped) {
			t.Errorf("available again without a watch of %s started since the outage", gvr.Resource)
		}
	}
	inv.mu.RUnlock()
	if !same || testprom.Counters(t, reg)["routewarden_inventory_informer_starts_total{}"] != 1 {
		t.Error("the informers were replaced: their watches should have resumed")
	}
	listsAfter := lists(t, reg)
	for res, n := range listsAfter {
		if n-listsBefore[res] > 1 {
			t.Errorf("%s listed %.0f times after the outage, want at most once", res, n-listsBefore[res])
		}
	}
	t.Logf("lists after the outage: %v (before: %v)", listsAfter, listsBefore)

	if out, err := env.Kubectl("delete", "node", "node5"); err != nil {
		t.Fatalf("kubectl delete node node5: %v: %s", err, out)
	}
	env.Apply(t, writeTemp(t, testkube.NodeManifest(6)))
	wait.True(t, "node5 deleted and node6 added", time.Minute, func() bool {
		c, _, _ := inv.Cluster(time.Now())
		gone := slices.ContainsFunc(c.Deleted, func(d validator.DeletedNode) bool { return d.Name == "node5" })
		return gone && hasNode(inv, "node6") && !hasNode(inv, "node5")
	})
}

// hasNode reports whether the inventory has a Node of that name.
func hasNode(inv *Inventory, name string) bool {
	c, _, err := inv.Cluster(time.Now())
	return err == nil && slices.ContainsFunc(c.Nodes, func(n validator.Node) bool { return n.Name == name })
}

// lists is routewarden_inventory_lists_total by resource.
func lists(t *testing.T, reg prometheus.Gatherer) map[string]float64 {
	out := map[string]float64{}
	for k, v := range testprom.Counters(t, reg) {
		if res, ok := strings.CutPrefix(k, `routewarden_inventory_lists_total{resource="`); ok {
			out[strings.TrimSuffix(res, `"}`)] = v
		}
	}
	return out
}

// TestPromoteTombstonesNodesDeletedUnwatched: a node the replaced informers
// knew and the new ones do not was deleted while nobody watched, and gets a
// tombstone with its addresses; a tombstoned node that is back loses it.
func TestPromoteTombstonesNodesDeletedUnwatched(t *testing.T) {
	inv := offlineInventory(t, InventoryOptions{})
	node, set := testNode, testNodeSet
	old := set(node("node1", "10.0.0.11"), node("node2", "10.0.0.12"))
	inv.pending = old
	inv.promote(old)
	inv.tombstones = append(inv.tombstones, validator.DeletedNode{Name: "node3", DeletedAt: time.Now()})
	fresh := set(node("node1", "10.0.0.11"), node("node3", "10.0.0.13"))
	inv.pending = fresh
	inv.promote(fresh)
	c, _, err := inv.Cluster(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Deleted) != 1 || c.Deleted[0].Name != "node2" || len(c.Deleted[0].Addresses) != 1 {
		t.Fatalf("tombstones %+v, want node2's alone, with its address", c.Deleted)
	}
	if len(c.Nodes) != 2 || !inv.Status().Synced {
		t.Errorf("%d nodes, synced %v: want the new set's 2 and synced", len(c.Nodes), inv.Status().Synced)
	}
	stale := set()
	inv.promote(stale) // not the pending set: ignored
	if inv.live != fresh {
		t.Error("a set that is not pending was promoted")
	}
}

// offlineInventory is an Inventory whose API server is unreachable, for tests
// that drive its informer sets by hand.
func offlineInventory(t *testing.T, opts InventoryOptions) *Inventory {
	t.Helper()
	inv, err := NewInventory(&rest.Config{Host: "http://127.0.0.1:1"}, opts, zerolog.Nop(), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// testNode is a Node object with one InternalIP.
func testNode(name, ip string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{"name": name},
		"status":   map[string]any{"addresses": []any{map[string]any{"type": "InternalIP", "address": ip}}}}}
}

// testNodeSet is an informer set that holds these Nodes and nothing else.
func testNodeSet(nodes ...*unstructured.Unstructured) *informerSet {
	s := &informerSet{cancel: func() {}, objects: map[schema.GroupVersionResource]map[string]*decodedObject{
		gvrNodes: {}}}
	for _, n := range nodes {
		s.objects[gvrNodes][n.GetName()] = decodeObjectOf(gvrNodes, n)
	}
	return s
}
