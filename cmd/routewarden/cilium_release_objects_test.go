package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/cilium"
	"github.com/routewarden/routewarden/cmd/routewarden/cli"
	"github.com/routewarden/routewarden/internal/logbuf"
	"github.com/routewarden/routewarden/internal/testkube"
	"github.com/routewarden/routewarden/internal/wait"
	"github.com/routewarden/routewarden/kube"
	"github.com/routewarden/routewarden/validator"
)

// releaseObjects are a cluster's BGP objects as the release defines them: BGP
// control plane v2 in the version the release stores (one instance without a
// peer at routewarden: a mistake validate-config must report), v1's
// CiliumBGPPeeringPolicy while the release has it (with a restart time longer
// than routewarden's grace window), an LB IP pool, two nodes, and three
// LoadBalancer Services: store/v2 selected by the CiliumBGPAdvertisement,
// store/v1 by the peering policy, store/none by neither.
func releaseObjects(c testkube.Cilium) string {
	docs := []string{`apiVersion: v1
kind: ConfigMap
metadata: {name: cilium-config, namespace: kube-system}
data: {ipam: cluster-pool, cluster-pool-ipv4-cidr: 10.244.0.0/16, enable-bgp-control-plane: "true"}
`, `apiVersion: ` + c.LBPoolAPIVersion() + `
kind: CiliumLoadBalancerIPPool
metadata: {name: vips}
spec: {blocks: [{cidr: 172.16.100.0/24}]}
`, `apiVersion: ` + c.BGPAPIVersion() + `
kind: CiliumBGPClusterConfig
metadata: {name: rack}
spec:
  nodeSelector: {matchLabels: {kubernetes.io/os: linux}}
  bgpInstances:
  - name: with-routewarden
    localASN: 65010
    peers: [{name: routewarden, peerAddress: 10.0.0.250, peerASN: 65000, peerConfigRef: {name: routewarden}}]
  - name: tor-only
    localASN: 65012
    peers: [{name: tor, peerAddress: 10.0.0.1, peerASN: 65000, peerConfigRef: {name: routewarden}}]
`, `apiVersion: ` + c.BGPAPIVersion() + `
kind: CiliumBGPPeerConfig
metadata: {name: routewarden}
spec:
  gracefulRestart: {enabled: true, restartTimeSeconds: 120}
  families: [{afi: ipv4, safi: unicast, advertisements: {matchLabels: {advertise: bgp}}}]
`, `apiVersion: ` + c.BGPAPIVersion() + `
kind: CiliumBGPAdvertisement
metadata: {name: bgp, labels: {advertise: bgp}}
spec:
  advertisements:
  - advertisementType: PodCIDR
  - advertisementType: Service
    service: {addresses: [LoadBalancerIP]}
    selector: {matchLabels: {announce: v2}}
`}
	if c.HasPeeringPolicy() {
		docs = append(docs, `apiVersion: cilium.io/v2alpha1
kind: CiliumBGPPeeringPolicy
metadata: {name: rack-v1}
spec:
  nodeSelector: {matchLabels: {kubernetes.io/os: linux}}
  virtualRouters:
  - localASN: 65011
    exportPodCIDR: true
    serviceSelector: {matchLabels: {announce: v1}}
    serviceAdvertisements: [LoadBalancerIP]
    neighbors:
    - {peerAddress: 10.0.0.250/32, peerASN: 65000, gracefulRestart: {enabled: true, restartTimeSeconds: 300}}
`)
	}
	docs = append(docs, "apiVersion: v1\nkind: Namespace\nmetadata: {name: store}\n")
	for i, name := range []string{"v2", "v1", "none"} {
		docs = append(docs, fmt.Sprintf(`apiVersion: v1
kind: Service
metadata: {name: %[1]s, namespace: store, labels: {announce: %[1]s}}
spec: {type: LoadBalancer, ports: [{port: 80}]}
status: {loadBalancer: {ingress: [{ip: 172.16.100.1%[2]d}]}}
`, name, i))
	}
	for i := 1; i <= 2; i++ {
		docs = append(docs, testkube.NodeManifest(i), testkube.CiliumNodeManifest(i))
	}
	return strings.Join(docs, "---\n")
}

// announcedServices describes the cluster's Services: "store/v2 announced" or "store/none".
func announcedServices(c *validator.Cluster) []string {
	var out []string
	for _, s := range c.Services {
		d := s.Key()
		if s.Announced {
			d += " announced"
		}
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// wantAnnounced is what every reader must make of releaseObjects.
func wantAnnounced(c testkube.Cilium) []string {
	v1 := "store/v1"
	if c.HasPeeringPolicy() {
		v1 += " announced"
	}
	return []string{"store/none", v1, "store/v2 announced"}
}

// checkReleaseInventory: the informers watch the versions the release serves
// and see what releaseObjects says; a deprecated version watched (the peering
// policy in 1.18) is warned about once, not on every list and watch.
func checkReleaseInventory(t *testing.T, env *testkube.Env, c testkube.Cilium) {
	logs := &logbuf.Buffer{}
	inv, err := kube.Connect(kube.Connection{Kubeconfig: env.Kubeconfig},
		kube.InventoryOptions{ProbeInterval: 200 * time.Millisecond}, zerolog.New(logs), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the inventory's Run: %v", err)
		}
	})
	wait.True(t, "the inventory to be available", time.Minute, func() bool { return inv.Status().Available })
	if d := inv.Status().Degraded; len(d) != 0 {
		t.Errorf("degraded without %v, though Cilium %s serves them", d, c)
	}
	wait.For(t, "the Services and their announcements", 30*time.Second, func() error {
		cl, _, err := inv.Cluster(time.Now())
		if err != nil {
			return err
		}
		if got := announcedServices(cl); !slices.Equal(got, wantAnnounced(c)) || len(cl.LBPools) != 1 {
			return fmt.Errorf("Services %q, LB pools %v; want %q and one pool", got, cl.LBPools, wantAnnounced(c))
		}
		return nil
	})
	deprecated := 0
	if c.HasPeeringPolicy() {
		crd, _ := os.ReadFile(filepath.Join(c.Dir, "v2alpha1", "ciliumbgppeeringpolicies.yaml"))
		if strings.Contains(string(crd), "deprecated: true") {
			deprecated = 1
		}
	}
	time.Sleep(time.Second) // a few more probes: a repeated warning would show
	if n := strings.Count(logs.String(), "CiliumBGPPeeringPolicy is deprecated"); n != deprecated {
		t.Errorf("the deprecation warning is logged %d times, want %d:\n%s", n, deprecated, logs.String())
	}
}

// checkReleaseKubectlInput: kubectl's output of the release's objects, read
// as validate-config and check read cluster files.
func checkReleaseKubectlInput(t *testing.T, env *testkube.Env, c testkube.Cilium) {
	kinds := "nodes,ciliumnodes.cilium.io,ciliumloadbalancerippools.cilium.io,services,ciliumbgpclusterconfigs.cilium.io," +
		"ciliumbgppeerconfigs.cilium.io,ciliumbgpadvertisements.cilium.io"
	if c.HasPeeringPolicy() {
		kinds += ",ciliumbgppeeringpolicies.cilium.io"
	}
	objects, err := env.Kubectl("get", kinds, "-A", "-o", "yaml")
	if err != nil {
		t.Fatalf("kubectl get: %v\n%s", err, objects)
	}
	cm, err := env.Kubectl("-n", "kube-system", "get", "configmap", "cilium-config", "-o", "yaml")
	if err != nil {
		t.Fatalf("kubectl get cilium-config: %v\n%s", err, cm)
	}
	files := []string{writeFile(t, "objects.yaml", objects), writeFile(t, "cilium-config.yaml", cm)}

	o, err := cilium.ReadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := o.Cluster(cilium.ClusterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := announcedServices(cl); !slices.Equal(got, wantAnnounced(c)) || len(cl.LBPools) != 1 {
		t.Errorf("check's cluster files: Services %q, LB pools %v; want %q and one pool", got, cl.LBPools, wantAnnounced(c))
	}

	code, stdout, stderr := runCLI(t, append([]string{"validate-config", "--config",
		filepath.Join(vcDir, "routewarden.yaml")}, files...)...)
	want := []string{`critical: CiliumBGPClusterConfig rack: spec.bgpInstances[1].peers: BGP instance "tor-only" (local ASN 65012) has no peer at routewarden's address 10.0.0.250`}
	if c.HasPeeringPolicy() {
		want = append(want, "warning: CiliumBGPPeeringPolicy rack-v1: spec.virtualRouters[0].neighbors[0].gracefulRestart")
	}
	if code != cli.ExitFindings || strings.Count(stdout, "\n") != len(want)+2 {
		t.Errorf("validate-config: exit %d, want %d, and %d problems:\n%s%s", code, cli.ExitFindings, len(want), stdout, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stdout, w) {
			t.Errorf("validate-config does not report %q:\n%s", w, stdout)
		}
	}
}
