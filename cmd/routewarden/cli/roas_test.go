package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/internal/golden"
)

// TestROAsGolden: routewarden roas prints the lb-vips scenario's ROA set as
// JSON and as an RFC 8416 SLURM file; without the pod ranges it says so on
// stderr; with allocations no AS resolves it still prints the set, names
// them and exits 1; bad usage exits 2.
func TestROAsGolden(t *testing.T) {
	scen := filepath.Join(scenarioDir, "lb-vips")
	cfg := "../../../testdata/roas/routewarden.yaml"
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		golden string // stdout's golden file ("" when the command fails)
		stderr string // what stderr contains
	}{
		{"json", []string{"--config", cfg, "--cluster", filepath.Join(scen, "cluster.json"),
			"--cluster", filepath.Join(scen, "cilium-config.yaml")}, ExitOK, "lb-vips.json", ""},
		{"slurm", []string{"--config", cfg, "--cluster", filepath.Join(scen, "cluster.json"),
			"--cluster", filepath.Join(scen, "cilium-config.yaml"), "-o", "slurm"}, ExitOK, "lb-vips.slurm.json", ""},
		{"no cilium-config", []string{"--config", cfg, "--cluster", filepath.Join(scen, "cluster.json")}, ExitOK,
			"lb-vips.no-pod-ranges.json", "the pod ranges are unknown"},
		{"no AS for the nodes", []string{"--cluster", filepath.Join(scen, "cluster.json"),
			"--cluster", filepath.Join(scen, "cilium-config.yaml")}, ExitFindings, "lb-vips.unresolved.json",
			"10.244.1.0/24 of node node1: the node has no local ASN"},
		{"unknown output", []string{"--cluster", filepath.Join(scen, "cluster.json"), "-o", "csv"}, ExitUsage, "",
			`-o "csv": expected one of json, slurm`},
		{"no cluster", nil, ExitUsage, "", "at least one --cluster"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, append([]string{"roas"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q does not say %q", stderr, tc.stderr)
			}
			if tc.golden == "" {
				return
			}
			golden.Assert(t, filepath.Join("../../../testdata/roas", tc.golden), []byte(stdout))
		})
	}
}
