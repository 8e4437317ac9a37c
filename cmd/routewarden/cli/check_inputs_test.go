package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/internal/golden"
)

// frrVariants holds what FRR 8.4's bgpd printed for a ToR and a node
// (hack/dump-variants/gen.sh): node01 (10.0.0.11) of healthy-20-nodes sends
// its pod CIDR from 127.0.1.11, the ToR holds its own routes too.
const frrVariants = "../../../bgp/dump/testdata/variants"

// TestCheckInputs feeds check the outputs operators have, real tools' each,
// and compares exit code, output and error whole (testdata/check-inputs,
// -update rewrites them).
func TestCheckInputs(t *testing.T) {
	if golden.Updating() {
		dumpClusterInputs(t)
	}
	cluster := filepath.Join(scenarioDir, "healthy-20-nodes")
	base := []string{"check", "-o", "wide", "--cluster", filepath.Join(cluster, "cluster.json"), "--cluster",
		filepath.Join(cluster, "cilium-config.yaml"), "--families", "ipv4", "--fail-on", "never"}
	frr := func(name string) string { return filepath.Join(frrVariants, name) }
	kube := func(name string) string { return filepath.Join(clusterInputs, name) }
	routes := []string{"--routes", frr("tor-unicast-detail.json")}
	for _, tc := range []struct {
		name string
		args []string
	}{
		// FRR's text output, detected and with --routes-format frr: "run it with json".
		{"frr-text", []string{"--routes", frr("tor-unicast.txt")}},
		{"frr-text-format-frr", []string{"--routes-format", "frr", "--routes", frr("tor-unicast.txt")}},
		{"frr-truncated", []string{"--routes", frr("tor-unicast-truncated.json")}},
		// Cluster files that hold nothing routewarden reads, or are cut short.
		{"cluster-pods-only", append([]string{"check", "--cluster", kube("pods.yaml")}, routes...)},
		{"cluster-kubeconfig", append([]string{"check", "--cluster", kube("kubeconfig.yaml")}, routes...)},
		{"cluster-kubectl-table", append([]string{"check", "--cluster", kube("nodes-wide.txt")}, routes...)},
		{"cluster-truncated-json", append([]string{"check", "--cluster", kube("nodes-truncated.json")}, routes...)},
		{"validate-config-misspelt-kind", []string{"validate-config", "--config", filepath.Join(vcDir, "routewarden.yaml"),
			kube("cilium-misspelt-kind.yaml")}},
		{"validate-config-unknown-version", []string{"validate-config", "--config", filepath.Join(vcDir,
			"routewarden.yaml"), kube("cilium-unknown-version.yaml")}},
		// A ToR's own routes ("peerId": "(unspec)") are read as the router's.
		{"frr-tor-own-routes", []string{"--routes", frr("tor-unicast.json")}},
		{"frr-received-routes-no-peer", []string{"--routes", frr("tor-received-routes.json")}},
		{"frr-received-routes", []string{"--routes", frr("tor-received-routes.json") + "@127.0.1.11"}},
		// The node's side, which names no peer, against the ToR's table after a policy dropping its CIDR.
		{"frr-advertised-filtered", []string{"--routes", frr("node-advertised-routes.json"),
			"--tor-routes", frr("tor-unicast-filtered.json")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(slices.Clone(base), tc.args...)
			if tc.args[0] == "check" || tc.args[0] == "validate-config" {
				args = tc.args // its own command and cluster
			}
			code, out, stderr := runCLI(t, args...)
			got := fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, out, stderr)
			if strings.Contains(got, "invalid IP") {
				t.Errorf("a message prints an invalid address:\n%s", got)
			}
			golden.Assert(t, filepath.Join("../../../testdata/check-inputs", tc.name+".txt"), []byte(got))
		})
	}
}

// TestCheckHelpQuotesCommands: a flag's usage with a command in backticks
// loses it to pflag's value placeholder ("--tor-routes show bgp ipv4 unicast json").
func TestCheckHelpQuotesCommands(t *testing.T) {
	_, out, _ := runCLI(t, "check", "--help")
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "--") && strings.Contains(strings.Fields(line)[1], "show") {
			t.Errorf("a flag's placeholder is a command: %q", line)
		}
	}
	if !strings.Contains(out, "--tor-routes stringArray") {
		t.Errorf("check --help has no --tor-routes stringArray:\n%s", out)
	}
}
