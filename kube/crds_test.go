package kube

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/internal/testkube"
)

// TestExamplesAreValidCiliumObjects proves that the Cilium objects the tests
// use are what Cilium accepts: every example and scenario input is applied with
// server-side dry run to a real kube-apiserver that has Cilium's own CRDs.
// namespaceDoc matches a Namespace document's name in a multi-document YAML file.
var namespaceDoc = regexp.MustCompile(`(?m)^kind: Namespace\nmetadata:\n  name: (\S+)$`)

func TestExamplesAreValidCiliumObjects(t *testing.T) {
	env := testkube.Start(t)
	env.InstallCiliumCRDs(t)
	repo := testkube.Repo()
	files, _ := filepath.Glob(filepath.Join(repo, "testdata", "validate-config", "*.yaml"))
	scen, _ := filepath.Glob(filepath.Join(repo, "testdata", "scenarios", "*", "cluster.input.yaml"))
	files = append(files, scen...)
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "kind:") {
			continue // routewarden's own config
		}
		// A dry run creates nothing, so the namespaces a scenario brings must exist first.
		for _, m := range namespaceDoc.FindAllStringSubmatch(string(data), -1) {
			if out, err := env.Kubectl("create", "namespace", m[1]); err != nil && !strings.Contains(out, "AlreadyExists") {
				t.Fatalf("creating namespace %s for %s: %v\n%s", m[1], f, err, out)
			}
		}
		out, err := env.DryRun(f)
		if err != nil {
			t.Errorf("%s is not valid against Cilium's CRDs: %v\n%s", f, err, out)
		}
		checked++
	}
	if checked < 10 {
		t.Errorf("checked only %d files", checked)
	}
	// A mistake must be caught: the check is not a formality.
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("apiVersion: cilium.io/v2\nkind: CiliumBGPPeerConfig\nmetadata: {name: x}\n"+
		"spec: {families: [{afi: ipv5, safi: unicast}]}\n"), 0o600)
	if out, err := env.DryRun(bad); err == nil || !strings.Contains(out, "afi") {
		t.Errorf("an invalid afi was accepted: %v %s", err, out)
	}
}
