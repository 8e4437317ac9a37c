package kube

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/testfile"
	"github.com/routewarden/routewarden/internal/testkube"
	"github.com/routewarden/routewarden/internal/wait"
	"github.com/routewarden/routewarden/validator"
)

// TestInventoryFollowsServices runs the informers against a real API server:
// the lb-vips scenario's Services, EndpointSlices and CiliumBGPAdvertisement
// become validator Services; a Service of the same name in another namespace
// is another Service; a deleted Service disappears.
func TestInventoryFollowsServices(t *testing.T) {
	env := testkube.Shared(t, testkube.NewestCilium(t))
	env.Apply(t, filepath.Join(testkube.Repo(), "testdata", "scenarios", "lb-vips", "cluster.input.yaml"))
	inv, _ := startInventory(t, env)
	wait.True(t, "the inventory to be available", time.Minute, func() bool { return inv.Status().Available })

	describe := func() []string {
		c, _, err := inv.Cluster(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if !c.ServicesKnown {
			t.Fatal("the inventory watches Services, yet ServicesKnown is false")
		}
		var out []string
		for _, s := range c.Services {
			out = append(out, fmt.Sprintf("%s %v %s ready=%d/%d announced=%v", s.Key(), s.VIPs, s.ExternalTrafficPolicy,
				readyCount(s), len(s.Endpoints), s.Announced))
		}
		slices.Sort(out)
		return out
	}
	want := []string{
		"shop/api [172.16.100.11] Local ready=1/2 announced=true",
		"shop/cart [172.16.100.13] Cluster ready=1/1 announced=true",
		"shop/db [172.16.100.12] Cluster ready=0/1 announced=true",
		"shop/web [172.16.100.10] Cluster ready=2/2 announced=true",
	}
	wait.True(t, "the four LoadBalancer Services", time.Minute, func() bool { return slices.Equal(describe(), want) })

	other := writeTemp(t, `apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {type: LoadBalancer, ports: [{port: 80}]}
status: {loadBalancer: {ingress: [{ip: 172.16.100.50}]}}
`)
	env.Apply(t, other)
	wait.True(t, "default/web beside shop/web", time.Minute, func() bool {
		return slices.Contains(describe(), "default/web [172.16.100.50] Cluster ready=0/0 announced=true")
	})
	if out, err := env.Kubectl("-n", "shop", "delete", "service", "cart"); err != nil {
		t.Fatal(out)
	}
	wait.True(t, "shop/cart to disappear", time.Minute, func() bool {
		return !slices.ContainsFunc(describe(), func(s string) bool { return strings.HasPrefix(s, "shop/cart ") })
	})
	if got := describe(); len(got) != 4 {
		t.Errorf("after the deletion: %q", got)
	}
}

func readyCount(s validator.Service) int { return s.ReadyEndpoints() }

func writeTemp(t *testing.T, content string) string { return testfile.Temp(t, "objects.yaml", content) }
