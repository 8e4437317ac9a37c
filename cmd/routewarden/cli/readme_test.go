package cli

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

// readmeExamples are the usage examples of docs/ (check.md, validate-config.md):
// each runs in its directory (relative to the repository), its output is a
// golden file under testdata/readme/, and the document shows exactly that
// output after the marker <!-- example: NAME -->. go test -update rewrites both.
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

// exampleDoc is the document showing an example: check's in docs/check.md,
// the others (validate-config, run with a bad config) in docs/validate-config.md.
func exampleDoc(name string) string {
	if strings.HasPrefix(name, "check-") {
		return "docs/check.md"
	}
	return "docs/validate-config.md"
}

// TestReadmeExamples keeps the usage examples of docs/ true.
func TestReadmeExamples(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	for _, ex := range readmeExamples {
		doc := exampleDoc(ex.name)
		if _, ok := docs[doc]; !ok {
			b, err := os.ReadFile(filepath.Join(root, doc))
			if err != nil {
				t.Fatal(err)
			}
			docs[doc] = string(b)
		}
		t.Run(ex.name, func(t *testing.T) {
			t.Chdir(filepath.Join(root, ex.dir))
			var out bytes.Buffer
			code := Execute(context.Background(), strings.Fields(ex.args), strings.NewReader(""), &out, &out)
			got := fmt.Sprintf("$ routewarden %s\n%s$ echo $?\n%d\n", ex.args, out.String(), code)
			golden.Assert(t, filepath.Join(root, "testdata/readme", ex.name+".txt"), []byte(got))
			block := regexp.MustCompile("(?s)(<!-- example: " + regexp.QuoteMeta(ex.name) + " -->\n```\n)(.*?)(```\n)")
			text := docs[doc]
			m := block.FindStringSubmatchIndex(text)
			switch {
			case m == nil:
				t.Errorf("%s has no <!-- example: %s --> followed by a ``` block", doc, ex.name)
			case golden.Updating():
				docs[doc] = text[:m[4]] + got + text[m[5]:]
			case text[m[4]:m[5]] != got:
				t.Errorf("%s's example %s is not the output (go test -update rewrites it):\n%s", doc, ex.name, got)
			}
		})
	}
	if golden.Updating() {
		for doc, text := range docs {
			if err := os.WriteFile(filepath.Join(root, doc), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
