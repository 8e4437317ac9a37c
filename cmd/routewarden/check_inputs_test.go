package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/internal/golden"
)

// frrVariants holds what FRR 8.4's bgpd printed for a ToR and a node
// (hack/frr-variants/gen.sh): node01 (10.0.0.11) of healthy-20-nodes sends
// its pod CIDR from 127.0.1.11, the ToR holds its own routes too.
const frrVariants = "../../bgp/dump/testdata/frr"

// TestCheckInputs feeds check the outputs operators have, real tools' each,
// and compares exit code, output and error whole (testdata/check-inputs,
// -update rewrites them).
func TestCheckInputs(t *testing.T) {
	cluster := filepath.Join(scenarioDir, "healthy-20-nodes")
	base := []string{"check", "-o", "wide", "--cluster", filepath.Join(cluster, "cluster.json"), "--cluster",
		filepath.Join(cluster, "cilium-config.yaml"), "--families", "ipv4", "--fail-on", "never"}
	frr := func(name string) string { return filepath.Join(frrVariants, name) }
	for _, tc := range []struct {
		name string
		args []string
	}{
		// A ToR's own routes ("peerId": "(unspec)") are read as the router's.
		{"frr-tor-own-routes", []string{"--routes", frr("tor-unicast.json")}},
		{"frr-received-routes-no-peer", []string{"--routes", frr("tor-received-routes.json")}},
		{"frr-received-routes", []string{"--routes", frr("tor-received-routes.json") + "@127.0.1.11"}},
		// The node's side, which names no peer, against the ToR's table after a policy dropping its CIDR.
		{"frr-advertised-filtered", []string{"--routes", frr("node-advertised-routes.json"),
			"--tor-routes", frr("tor-unicast-filtered.json")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, append(base, tc.args...)...)
			got := fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, out, stderr)
			if strings.Contains(got, "invalid IP") {
				t.Errorf("a message prints an invalid address:\n%s", got)
			}
			golden.Assert(t, filepath.Join("../../testdata/check-inputs", tc.name+".txt"), []byte(got))
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
