package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/internal/golden"
)

const vcDir = "../../../testdata/validate-config"

func TestValidateConfigGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"good", []string{"--config", "routewarden.yaml", "good-v2.yaml", "cilium-config-cluster-pool.yaml", "nodes.yaml"}, ExitOK},
		{"bad", []string{"--config", "routewarden.yaml", "bad-v2alpha1.yaml", "bad-peeringpolicy.yaml",
			"legacy-bgp-config.yaml", "cilium-config-cluster-pool.yaml", "nodes.yaml"}, ExitFindings},
		{"bad-config", []string{"--config", "../../../config/testdata/bad.yaml"}, ExitFindings},
		// localASN: 99999999999 is reported in routewarden's words and the other checks still run.
		{"bad-types", []string{"--config", "routewarden.yaml", "bad-types.yaml", "cilium-config-cluster-pool.yaml",
			"nodes.yaml"}, ExitFindings},
		{"overlapping-advertisements", []string{"--config", "routewarden.yaml", "good-v2.yaml",
			"overlapping-advertisements.yaml", "cilium-config-cluster-pool.yaml", "nodes.yaml"}, ExitFindings},
		{"deploy-examples", []string{"--config", "../../../deploy/examples/routewarden.yaml",
			"../../../deploy/examples/cilium-bgp-v2.yaml", "../../../deploy/examples/cilium-bgp-peeringpolicy-v2alpha1.yaml",
			"cilium-config-cluster-pool.yaml", "nodes.yaml"}, ExitOK},
		{"deploy-examples-v2alpha1", []string{"--config", "../../../deploy/examples/routewarden.yaml",
			"../../../deploy/examples/cilium-bgp-v2alpha1.yaml", "cilium-config-cluster-pool.yaml", "nodes.yaml"}, ExitOK},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"validate-config"}
			for _, a := range tc.args {
				if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "../") {
					a = filepath.Join(vcDir, a)
				}
				args = append(args, a)
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != tc.code {
				t.Errorf("exit code %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			golden.Assert(t, filepath.Join(vcDir, tc.name+".golden"), []byte(stdout))
		})
	}
}

// TestBadUsage: bad input gets exit code 2 and a message that says what and where.
func TestBadUsage(t *testing.T) {
	scen := filepath.Join(scenarioDir, "leaks")
	noPeers := writeFile(t, "nopeers.yaml", "bgp: {asn: 65000, routerId: 192.0.2.1, listenPort: 1179}\n")
	noCluster := writeFile(t, "nocluster.yaml", "bgp: {asn: 65000, routerId: 192.0.2.1, listenPort: 1179, "+
		"dynamicNeighbors: [{prefix: 127.0.1.0/24}]}\nkubernetes: {kubeconfig: /nonexistent/kubeconfig}\n")
	garbage := writeFile(t, "garbage.json", "{\n  \"10.0.0.0/24\": [\n    {\"nlri\": 5}\n  ]\n}\n")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no arguments", []string{"check"}, "check needs at least one --cluster and one --routes"},
		{"unknown flag", []string{"check", "--bogus"}, "unknown flag: --bogus"},
		{"missing cluster file", []string{"check", "--cluster", "nope.json", "--routes", garbage}, "nope.json"},
		{"bad routes", []string{"check", "--cluster", filepath.Join(scen, "cluster.json"), "--routes", garbage},
			"garbage.json:3: JSON path $.nlri: found number"},
		{"bad output", []string{"check", "--cluster", "x", "--routes", "y", "-o", "xml"}, `-o "xml": expected one of table, wide, explain, json, yaml`},
		{"bad fail-on", []string{"check", "--cluster", "x", "--routes", "y", "--fail-on", "major"}, "--fail-on"},
		{"bad config", []string{"check", "--cluster", filepath.Join(scen, "cluster.json"), "--routes", garbage,
			"--config", "../../../config/testdata/bad.yaml"}, "bad.yaml:10: bgp.asn: found the string"},
		{"nothing to validate", []string{"validate-config"}, "nothing to validate"},
		{"run with a bad config", []string{"run", "--config", "../../../config/testdata/bad.yaml"},
			"bad.yaml:10: bgp.asn: found the string"},
		{"run without peers", []string{"run", "--config", noPeers}, "nopeers.yaml:1: bgp.dynamicNeighbors: required, or bgp.neighbors"},
		{"run without a cluster", []string{"run", "--config", noCluster}, `kubeconfig "/nonexistent/kubeconfig"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != ExitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

// TestEmptyRouteFileMeansEverythingIsMissing: an empty dump said to cover IPv4
// is a finding-worthy situation, not an error.
func TestEmptyRouteFileMeansEverythingIsMissing(t *testing.T) {
	empty := writeFile(t, "empty.json", "")
	dir := filepath.Join(scenarioDir, "kubenet-migration")
	args := append([]string{"check", "-o", "json", "--families", "ipv4", "--routes", empty}, clusterArgs(dir)...)
	code, stdout, _ := runCLI(t, args...)
	if code != ExitFindings || strings.Count(stdout, `"rule": "missing-route"`) != 3 {
		t.Errorf("exit %d; want 3 missing-route findings (one per Cilium node):\n%s", code, stdout)
	}
}

// TestEmptyRouteFileWithoutFamiliesIsAnError: a dump with no route at all
// (a failed ssh, an empty redirect) checks nothing: exit 2 saying so.
func TestEmptyRouteFileWithoutFamiliesIsAnError(t *testing.T) {
	empty := writeFile(t, "empty.json", "")
	args := append([]string{"check", "--routes", empty}, clusterArgs(filepath.Join(scenarioDir, "kubenet-migration"))...)
	code, stdout, stderr := runCLI(t, args...)
	if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "hold no route at all") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

func TestFailOn(t *testing.T) {
	dir := filepath.Join(scenarioDir, "kubernetes-ipam-drift") // one warning only
	args := append([]string{"check"}, clusterArgs(dir)...)
	args = append(args, "--routes", filepath.Join(dir, "routes.gobgp.json"))
	if code, _, _ := runCLI(t, append(args, "--fail-on", "critical")...); code != ExitOK {
		t.Errorf("--fail-on critical with only a warning: exit %d, want 0", code)
	}
	if code, _, _ := runCLI(t, append(args, "--fail-on", "warning")...); code != ExitFindings {
		t.Errorf("--fail-on warning: exit %d, want 1", code)
	}
}
