package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/internal/testkube"
)

// TestCiliumReleases is the Cilium version matrix: for every release of
// hack/tools/crds.txt, one real kube-apiserver with that release's CRDs, and
//   - DryRun: deploy/examples, the plain manifests (the chart's objects), the
//     validate-config examples and every scenario input pass a server-side dry
//     run wherever the release serves their kinds;
//   - Inventory: the informers read the release's BGP objects (the version it
//     serves of each) and its LoadBalancer IP pools;
//   - KubectlInput: `kubectl get -o yaml` of those objects is read by
//     validate-config and by check's cluster files alike.
//
// The end-to-end tests run against the newest release, TestVIPEndToEndOldestCilium against the oldest.
func TestCiliumReleases(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: installs each release's CRDs in a real kube-apiserver (the full tier, hack/test.sh)")
	}
	releases := testkube.CiliumReleases(t)
	accepted := map[string][]int{} // file -> the minors whose CRDs accept it
	for _, c := range releases {
		t.Run(c.String(), func(t *testing.T) {
			env := testkube.Shared(t, c)
			t.Run("DryRun", func(t *testing.T) {
				for _, f := range dryRunFiles(t) {
					if ok := dryRun(t, env, f); ok {
						accepted[f] = append(accepted[f], c.Minor())
					}
				}
				// A mistake must be caught: the check is not a formality.
				bad := writeFile(t, "bad.yaml", "apiVersion: "+c.BGPAPIVersion()+"\nkind: CiliumBGPPeerConfig\n"+
					"metadata: {name: x}\nspec: {families: [{afi: ipv5, safi: unicast}]}\n")
				if out, err := env.DryRun(bad); err == nil || !strings.Contains(out, "afi") {
					t.Errorf("an invalid afi was accepted: %v %s", err, out)
				}
			})
			env.Apply(t, writeFile(t, "objects.yaml", releaseObjects(c)))
			t.Run("Inventory", func(t *testing.T) { checkReleaseInventory(t, env, c) })
			t.Run("KubectlInput", func(t *testing.T) { checkReleaseKubectlInput(t, env, c) })
		})
	}
	if t.Failed() {
		return
	}
	var minors []int
	for _, c := range releases {
		minors = append(minors, c.Minor())
	}
	// Which releases accept each example is what its first comment line says.
	for file, want := range exampleReleases(minors) {
		if got := accepted[filepath.Join(testkube.Repo(), file)]; !slices.Equal(got, want) {
			t.Errorf("%s is accepted by Cilium 1.%v, want 1.%v", file, got, want)
		}
	}
	for _, f := range dryRunFiles(t) {
		if len(accepted[f]) == 0 {
			t.Errorf("no release of the matrix accepts %s", f)
		}
	}
}

// exampleReleases are the minors whose CRDs must accept each BGP example, by
// what the examples' headers promise.
func exampleReleases(minors []int) map[string][]int {
	from := func(lo, hi int) []int {
		return slices.DeleteFunc(slices.Clone(minors), func(m int) bool { return m < lo || m > hi })
	}
	return map[string][]int{
		"deploy/examples/cilium-bgp-v2.yaml":                     from(18, 99),
		"deploy/examples/cilium-bgp-v2alpha1.yaml":               from(0, 99), // deprecated from 1.18, still served
		"deploy/examples/cilium-bgp-peeringpolicy-v2alpha1.yaml": from(0, 18),
		"deploy/manifests/routewarden.yaml":                      from(0, 99),
	}
}

// dryRunFiles are the Kubernetes manifests the matrix dry-runs.
func dryRunFiles(t *testing.T) []string {
	repo := testkube.Repo()
	var files []string
	for _, pattern := range []string{"deploy/examples/*.yaml", "deploy/manifests/*.yaml", "testdata/validate-config/*.yaml",
		"testdata/scenarios/*/cluster.input.yaml"} {
		m, _ := filepath.Glob(filepath.Join(repo, pattern))
		for _, f := range m {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), "\n# dry-run: refused.") {
				continue // invalid on purpose, for validate-config: the API server must refuse it
			}
			if strings.Contains(string(data), "\nkind:") || strings.HasPrefix(string(data), "kind:") ||
				strings.Contains(string(data), "\napiVersion:") {
				files = append(files, f) // not routewarden's own config
			}
		}
	}
	if len(files) < 15 {
		t.Fatalf("only %d manifests to dry-run", len(files))
	}
	return files
}

// namespaceDoc matches a Namespace document's name in a multi-document YAML file.
var namespaceDoc = regexp.MustCompile(`(?m)^kind: Namespace\nmetadata:\n  name: (\S+)$`)

// dryRun dry-runs a file against the release's CRDs: it reports whether the
// release accepts it, and fails the test if the file is invalid (as opposed to
// using a kind or version the release does not serve).
func dryRun(t *testing.T, env *testkube.Env, f string) bool {
	t.Helper()
	data, _ := os.ReadFile(f)
	// A dry run creates nothing, so the namespaces a file brings must exist first.
	for _, m := range namespaceDoc.FindAllStringSubmatch(string(data), -1) {
		if out, err := env.Kubectl("create", "namespace", m[1]); err != nil && !strings.Contains(out, "AlreadyExists") {
			t.Fatalf("creating namespace %s for %s: %v\n%s", m[1], f, err, out)
		}
	}
	out, err := env.DryRun(f)
	switch {
	case err == nil:
		return true
	case testkube.NotServed(out):
		return false
	}
	t.Errorf("%s is not valid against the release's CRDs: %v\n%s", f, err, out)
	return false
}
