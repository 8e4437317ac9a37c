package main

import (
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/internal/golden"
	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/testfrr"
	"github.com/routewarden/routewarden/internal/testkube"
)

const originASDir = "../../testdata/policy/attribute-mismatch"

// TestCheckOriginAS: Cilium's BGP objects (the newest release's CRDs, from a
// real API server through kubectl) give node1 local ASN 65010 and node2, by
// its CiliumBGPNodeConfigOverride, 65012. GoBGP nodes announce their pod
// CIDRs to a real FRR ToR: healthy, node2 speaks AS 65012; wrong, it speaks
// 65010. attribute-mismatch fires for exactly node2's CIDR in the wrong case
// and never in the healthy one. -update takes the objects and dumps again.
func TestCheckOriginAS(t *testing.T) {
	if golden.Updating() {
		dumpOriginASScenario(t)
	}
	for _, tc := range []struct{ name, routes string }{{"healthy", "routes.healthy.frr.json"}, {"wrong", "routes.wrong-as.frr.json"}} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, "check", "-o", "wide", "--fail-on", "never", "--families", "ipv4",
				"--cluster", filepath.Join(originASDir, "cluster.json"), "--routes", filepath.Join(originASDir, tc.routes))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden.Assert(t, filepath.Join(originASDir, "expected."+tc.name+".txt"), []byte(out))
			want := map[string]int{"healthy": 0, "wrong": 1}[tc.name]
			if n := strings.Count(out, "attribute-mismatch"); n != want || want == 1 && !strings.Contains(out, "10.244.2.0/24  node2") {
				t.Errorf("%d attribute-mismatch findings, want %d (node2's 10.244.2.0/24):\n%s", n, want, out)
			}
		})
	}
}

// dumpOriginASScenario takes the cluster from kubectl and the routes from FRR.
func dumpOriginASScenario(t *testing.T) {
	env := testkube.Start(t)
	env.InstallCilium(t, testkube.NewestCilium(t))
	manifest := strings.Join([]string{testkube.NodeManifest(1), testkube.NodeManifest(2), testkube.CiliumNodeManifest(1),
		testkube.CiliumNodeManifest(2), `apiVersion: cilium.io/v2
kind: CiliumBGPClusterConfig
metadata: {name: tor}
spec:
  nodeSelector: {matchLabels: {kubernetes.io/os: linux}}
  bgpInstances: [{name: tor, localASN: 65010}]
`, `apiVersion: cilium.io/v2
kind: CiliumBGPNodeConfigOverride
metadata: {name: node2}
spec: {bgpInstances: [{name: tor, localASN: 65012}]}
`}, "---\n")
	file := filepath.Join(t.TempDir(), "objects.yaml")
	if err := os.WriteFile(file, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	env.Apply(t, file)
	out, err := env.Kubectl("get", "nodes,ciliumnodes,ciliumbgpclusterconfigs,ciliumbgpnodeconfigoverrides", "-o", "json")
	if err != nil {
		t.Fatalf("kubectl: %v\n%s", err, out)
	}
	writeFixture(t, originASDir, "cluster.json", out)
	writeFixture(t, originASDir, "routes.healthy.frr.json", frrDumpWithNode2AS(t, 65012))
	writeFixture(t, originASDir, "routes.wrong-as.frr.json", frrDumpWithNode2AS(t, 65010))
}

// frrDumpWithNode2AS is FRR's table when node1 (AS 65010) and node2 (as) announce their pod CIDRs.
func frrDumpWithNode2AS(t *testing.T, as uint32) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tor := netip.MustParseAddr("127.0.2.1")
	port := loopback.FreePort(t)
	nodes := []netip.Addr{netip.MustParseAddr("127.0.1.11"), netip.MustParseAddr("127.0.1.12")}
	conf := testfrr.BMPConfig(t.TempDir(), tor, uint32(loopback.FreePort(t)), nodes...)
	vty := testfrr.StartBGPD(t, tor, port, strings.ReplaceAll(conf, "remote-as 65010", "remote-as external"))
	for i, n := range nodes {
		asn := map[int]uint32{0: 65010, 1: as}[i]
		sp, err := speaker.Start(ctx, speaker.Config{Local: n, ASN: asn, CollectorAddr: tor, CollectorPort: port,
			CollectorASN: 65000}, zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		defer sp.Stop()
		cidr := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 244, byte(i + 1), 0}), 24)
		if err := sp.Announce(ctx, cidr, netip.AddrFrom4([4]byte{10, 0, 0, byte(11 + i)})); err != nil {
			t.Fatal(err)
		}
	}
	return frrTable(t, vty, 2)
}
