package kube

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/routewarden/routewarden/internal/testkube"
	"github.com/routewarden/routewarden/internal/wait"
	"github.com/routewarden/routewarden/validator"
)

func startInventory(t *testing.T, env *testkube.Env) (*Inventory, chan error) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", env.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := NewInventory(cfg, InventoryOptions{ProbeInterval: 200 * time.Millisecond}, zerolog.Nop(),
		prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inv.Run(ctx) }()
	t.Cleanup(cancel)
	return inv, done
}

// TestInventoryFollowsTheCluster runs the informers against a real API server
// with Cilium's CRDs: objects appear, a deleted Node leaves a tombstone.
func TestInventoryFollowsTheCluster(t *testing.T) {
	env := testkube.Shared(t, testkube.NewestCilium(t))
	env.Apply(t, filepath.Join(testkube.Repo(), "testdata", "scenarios", "dual-stack-missing-ipv6", "cluster.input.yaml"))
	inv, _ := startInventory(t, env)
	wait.True(t, "the inventory to be available", time.Minute, func() bool { return inv.Status().Available })

	c, _, err := inv.Cluster(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Nodes) != 4 || len(c.CiliumNodes) != 4 || c.IPAM.Mode != validator.IPAMClusterPool ||
		len(c.IPAM.PodRanges) != 2 {
		t.Fatalf("cluster: %d nodes, %d CiliumNodes, IPAM %+v", len(c.Nodes), len(c.CiliumNodes), c.IPAM)
	}

	if out, err := env.Kubectl("delete", "node", "node2"); err != nil {
		t.Fatal(out)
	}
	wait.True(t, "node2's tombstone", time.Minute, func() bool {
		c, _, _ := inv.Cluster(time.Now())
		return len(c.Nodes) == 3 && len(c.Deleted) == 1
	})
	c, _, _ = inv.Cluster(time.Now())
	d := c.Deleted[0]
	if d.Name != "node2" || len(d.Addresses) == 0 || len(d.CIDRs) == 0 {
		t.Errorf("tombstone without addresses or CIDRs: %+v", d)
	}
}

func TestInventoryWithoutCiliumIsAClearError(t *testing.T) {
	env := testkube.Start(t)
	_, done := startInventory(t, env)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "is Cilium installed") {
			t.Fatalf("error %v, want one that asks whether Cilium is installed", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no error without Cilium's CRDs")
	}
}
