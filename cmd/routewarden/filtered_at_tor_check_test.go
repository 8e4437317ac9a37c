package main

import (
	"bufio"
	"context"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/dump"
	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/internal/golden"
	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/testfile"
	"github.com/routewarden/routewarden/internal/testfrr"
	"github.com/routewarden/routewarden/internal/wait"
)

const policyDir = "../../testdata/policy/filtered-at-tor"

// TestCheckToRRoutes: check with the ToR's table before its policy change
// (--routes: what the nodes sent) and after it (--tor-routes, post-policy)
// finds filtered-at-tor for exactly the CIDR the new prefix-list drops. The
// dumps are real FRR's (-update takes them again: a GoBGP speaker announces
// the 20 nodes' CIDRs of healthy-20-nodes to an FRR ToR).
func TestCheckToRRoutes(t *testing.T) {
	if golden.Updating() {
		dumpPolicyScenario(t)
	}
	cluster := filepath.Join(scenarioDir, "healthy-20-nodes")
	code, out, stderr := runCLI(t, "check", "-o", "wide", "--cluster", filepath.Join(cluster, "cluster.json"),
		"--cluster", filepath.Join(cluster, "cilium-config.yaml"), "--families", "ipv4", "--fail-on", "never",
		"--routes", filepath.Join(policyDir, "routes.pre.frr.json"), "--tor-routes", filepath.Join(policyDir, "tor-routes.frr.json"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden.Assert(t, filepath.Join(policyDir, "expected.wide.txt"), []byte(out))
	if n := strings.Count(out, "filtered-at-tor"); n != 1 || !strings.Contains(out, "10.244.2.0/24") {
		t.Errorf("want one filtered-at-tor finding, for 10.244.2.0/24:\n%s", out)
	}

	// Before the policy change, the ToR kept everything: nothing fires.
	code, out, stderr = runCLI(t, "check", "--cluster", filepath.Join(cluster, "cluster.json"), "--families", "ipv4",
		"--routes", filepath.Join(policyDir, "routes.pre.frr.json"), "--tor-routes", filepath.Join(policyDir, "routes.pre.frr.json"))
	if code != 0 || strings.Contains(out, "filtered-at-tor") {
		t.Errorf("healthy: exit %d, %s\n%s", code, stderr, out)
	}

	// A bad --tor-routes file is exit 2, naming it.
	code, _, stderr = runCLI(t, "check", "--cluster", filepath.Join(cluster, "cluster.json"),
		"--routes", filepath.Join(policyDir, "routes.pre.frr.json"), "--tor-routes", filepath.Join(policyDir, "nope.json"))
	if code != 2 || !strings.Contains(stderr, "nope.json") {
		t.Errorf("missing --tor-routes file: exit %d, %s; want 2 naming the file", code, stderr)
	}
}

// dumpPolicyScenario takes the scenario's dumps from a real FRR ToR.
func dumpPolicyScenario(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tor, node := netip.MustParseAddr("127.0.2.1"), netip.MustParseAddr("127.0.1.11")
	port := loopback.FreePort(t)
	conf := testfrr.BMPConfig(t.TempDir(), tor, uint32(loopback.FreePort(t)), node)
	vty := testfrr.StartBGPD(t, tor, port, testfrr.InboundPrefixList(conf, node, "nodes-in"))
	sp, err := speaker.Start(ctx, speaker.Config{Local: node, ASN: 65010, CollectorAddr: tor, CollectorPort: port,
		CollectorASN: 65000}, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sp.Stop)
	for i := 1; i <= 20; i++ {
		if err := sp.Announce(ctx, netip.MustParsePrefix(fmt.Sprintf("10.244.%d.0/24", i)),
			netip.AddrFrom4([4]byte{10, 0, 0, byte(10 + i)})); err != nil {
			t.Fatal(err)
		}
	}
	take := func(name string, want int) { writeFixture(t, policyDir, name, frrTable(t, vty, want)) }
	take("routes.pre.frr.json", 20)
	if err := testfrr.Deny(vty, "nodes-in", "10.244.2.0/24", node, false); err != nil {
		t.Fatal(err)
	}
	take("tor-routes.frr.json", 19)
}

// frrTable is FRR's `show bgp ipv4 unicast json`, once it holds want routes.
func frrTable(t *testing.T, vty func(...string) (string, error), want int) string {
	t.Helper()
	var out string
	wait.For(t, fmt.Sprintf("FRR to hold %d routes", want), 30*time.Second, func() error {
		var err error
		if out, err = vty("show bgp ipv4 unicast json"); err != nil {
			return err
		}
		rs, _, err := dump.Read("frr.json", bufio.NewReader(strings.NewReader(out)), "frr")
		if err != nil || len(rs) != want {
			return fmt.Errorf("%v: %d routes", err, len(rs))
		}
		return nil
	})
	return out
}

func writeFixture(t *testing.T, dir, name, content string) { testfile.Fixture(t, dir, name, content) }
