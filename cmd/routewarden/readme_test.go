package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/internal/golden"
)

// readmeExamples are the README's usage examples: each runs in its directory
// (relative to the repository), its output is a golden file under
// testdata/readme/, and the README shows exactly that output after the marker
// <!-- example: NAME -->. go test -update rewrites both.
var readmeExamples = []struct{ name, dir, args string }{
	{"check-table", "testdata/scenarios/incident-cluster-pool",
		"check --cluster cluster.json --cluster cilium-config.yaml --routes routes.frr.json"},
	{"check-wide", "testdata/scenarios/incident-cluster-pool",
		"check --cluster cluster.json --cluster cilium-config.yaml --routes routes.frr.json -o wide"},
	{"check-explain", "testdata/scenarios/incident-cluster-pool",
		"check --cluster cluster.json --cluster cilium-config.yaml --routes routes.frr.json -o explain"},
	{"check-json", "testdata/scenarios/kubernetes-ipam-drift",
		"check --cluster cluster.json --cluster cilium-config.yaml --routes routes.gobgp.json -o json"},
	{"check-ipv4-only", "testdata/scenarios/dual-stack-missing-ipv6",
		"check --cluster cluster.json --cluster cilium-config.yaml --routes routes.frr.json"},
	{"check-unreadable", "testdata/scenarios/incident-cluster-pool", "check --cluster cluster.json --routes ."},
	{"check-typo", "testdata/scenarios/incident-cluster-pool",
		"check --cluster cluster.json --routes routes.frr.json --ipam-mode clusterpool -o tabel"},
	{"validate-config", "testdata/validate-config", "validate-config --config routewarden.yaml bad-v2alpha1.yaml " +
		"legacy-bgp-config.yaml cilium-config-cluster-pool.yaml nodes.yaml"},
	{"validate-config-empty", "testdata/readme", "validate-config --config empty.yaml"},
	{"run-empty", "testdata/readme", "run --config empty.yaml"},
}

// TestReadmeExamples keeps the README's usage sections true.
func TestReadmeExamples(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	for _, ex := range readmeExamples {
		t.Run(ex.name, func(t *testing.T) {
			t.Chdir(filepath.Join(root, ex.dir))
			var out bytes.Buffer
			code := execute(context.Background(), strings.Fields(ex.args), strings.NewReader(""), &out, &out)
			got := fmt.Sprintf("$ routewarden %s\n%s$ echo $?\n%d\n", ex.args, out.String(), code)
			golden.Assert(t, filepath.Join(root, "testdata/readme", ex.name+".txt"), []byte(got))
			block := regexp.MustCompile("(?s)(<!-- example: " + regexp.QuoteMeta(ex.name) + " -->\n```\n)(.*?)(```\n)")
			m := block.FindStringSubmatchIndex(text)
			switch {
			case m == nil:
				t.Errorf("README.md has no <!-- example: %s --> followed by a ``` block", ex.name)
			case golden.Updating():
				text = text[:m[4]] + got + text[m[5]:]
			case text[m[4]:m[5]] != got:
				t.Errorf("README.md's example %s is not the output (go test -update rewrites it):\n%s", ex.name, got)
			}
		})
	}
	if golden.Updating() && text != string(readme) {
		if err := os.WriteFile(filepath.Join(root, "README.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
