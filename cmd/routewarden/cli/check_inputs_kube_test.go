package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/internal/testkube"
)

// clusterInputs holds what kubectl v1.34 printed against a real
// kube-apiserver (taken again by TestCheckInputs -update: dumpClusterInputs),
// and Cilium objects with a person's mistakes.
const clusterInputs = "../../../testdata/check-inputs/cluster"

// dumpClusterInputs takes the cluster-side inputs operators give by mistake
// from a real kube-apiserver with kubectl: a Pod list, the kubeconfig
// (kubectl config view: its secrets redacted), a kubectl table, and a Node
// list cut short; and the Cilium objects of testdata/validate-config with a
// misspelt kind and an apiVersion Cilium never had.
func dumpClusterInputs(t *testing.T) {
	env := testkube.Start(t)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "objects.yaml")
	pod := `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default}
spec:
  automountServiceAccountToken: false
  containers: [{name: web, image: nginx}]
`
	if err := os.WriteFile(manifest, []byte(testkube.NodeManifest(1)+"---\n"+pod), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := env.Kubectl("create", "serviceaccount", "default"); err != nil && !strings.Contains(out, "exists") {
		t.Fatalf("%v: %s", err, out)
	}
	env.Apply(t, manifest)
	write := func(name string, args ...string) string {
		out, err := env.Kubectl(args...)
		if err != nil {
			t.Fatalf("kubectl %v: %v\n%s", args, err, out)
		}
		path := filepath.Join(clusterInputs, name)
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if err := os.MkdirAll(clusterInputs, 0o755); err != nil {
		t.Fatal(err)
	}
	write("pods.yaml", "get", "pods", "-o", "yaml")
	write("kubeconfig.yaml", "config", "view")
	write("nodes-wide.txt", "get", "nodes", "-o", "wide")
	nodes := write("nodes-truncated.json", "get", "nodes", "-o", "json")
	cut := filepath.Join(clusterInputs, "nodes-truncated.json")
	if err := os.WriteFile(cut, []byte(nodes[:len(nodes)/2]), 0o644); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join(vcDir, "good-v2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string][2]string{
		"cilium-misspelt-kind.yaml":   {"kind: CiliumBGPPeerConfig\n", "kind: CiliumBGPPeerConfg\n"},
		"cilium-unknown-version.yaml": {"apiVersion: cilium.io/v2\nkind: CiliumBGPClusterConfig", "apiVersion: cilium.io/v3\nkind: CiliumBGPClusterConfig"},
	} {
		out := strings.Replace(string(good), edit[0], edit[1], 1)
		if out == string(good) {
			t.Fatalf("%s: %q is not in good-v2.yaml", name, edit[0])
		}
		if err := os.WriteFile(filepath.Join(clusterInputs, name), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
