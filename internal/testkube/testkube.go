// Package testkube gives tests a real Kubernetes control plane: etcd and
// kube-apiserver built from the Go module proxy (hack/tools/kube.sh) and started
// on 127.0.0.1 by hack/kube-env.sh, with the CRDs of a Cilium release
// (cilium.go) fetched from the module proxy by hack/tools/crds.sh.
//
// hack/test.sh exports KUBE_APISERVER, KUBECTL, ETCD and ROUTEWARDEN_CRDS.
// Without them a test is skipped locally and fails under CI, where they must
// be present.
package testkube

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Env is a running control plane.
type Env struct {
	Dir        string
	Kubeconfig string
	kubectl    string
	repo       string
	shared     bool            // lent by Shared: not to be stopped
	baseline   map[object]bool // Shared: the objects a fresh one holds
	kinds      string          // Shared: the kinds reset lists, comma-separated
}

// Repo returns the repository root.
func Repo() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// CRDDir returns the folder of CRD sets hack/tools/crds.sh made
// ($ROUTEWARDEN_CRDS; point it at another folder of that layout, NAME/ for
// each line of hack/tools/crds.txt, to test other CRDs): skips the test
// locally, fails it under CI, when unset.
func CRDDir(t testing.TB) string {
	t.Helper()
	requireEnv(t, "ROUTEWARDEN_CRDS", "hack/tools/crds.sh")
	return os.Getenv("ROUTEWARDEN_CRDS")
}

// requireEnv skips the test (fails it under CI) when the variable is unset.
// The quick tier (-short) needs none of them: there it skips, CI or not, so
// that `go test -short ./...` passes on a machine hack/test.sh never set up.
func requireEnv(t testing.TB, v, made string) {
	t.Helper()
	if os.Getenv(v) != "" {
		return
	}
	if os.Getenv("CI") != "" && !testing.Short() {
		t.Fatalf("%s is not set: run the tests with hack/test.sh, which runs %s", v, made)
	}
	t.Skipf("%s is not set: run hack/test.sh (it runs %s)", v, made)
}

// Start starts etcd and kube-apiserver for the test alone and kills them when
// it ends. Under -short (the quick tier: units, goldens, in-process BGP) the
// test is skipped: an API server takes seconds to start. Tests that need no
// outage and no control plane of their own use Shared.
func Start(t testing.TB) *Env {
	t.Helper()
	requireControlPlane(t)
	e := &Env{Dir: t.TempDir(), kubectl: os.Getenv("KUBECTL"), repo: Repo()}
	e.Kubeconfig = filepath.Join(e.Dir, "kubeconfig")
	script := filepath.Join(e.repo, "hack", "kube-env.sh")
	if out, err := exec.Command(script, "start", e.Dir).CombinedOutput(); err != nil {
		t.Fatalf("starting kube-apiserver and etcd: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if err := e.kill(); err != nil {
			t.Errorf("stopping kube-apiserver and etcd: %v", err)
		}
	})
	return e
}

// requireControlPlane skips the test under -short, and without the binaries
// (fails it under CI).
func requireControlPlane(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: needs a real kube-apiserver and etcd (the full tier, hack/test.sh)")
	}
	for _, v := range []string{"KUBE_APISERVER", "KUBECTL", "ETCD"} {
		requireEnv(t, v, "hack/tools/kube.sh to build the real kube-apiserver and etcd")
	}
}

// Kubectl runs kubectl against the control plane and returns its combined output.
func (e *Env) Kubectl(args ...string) (string, error) {
	cmd := exec.Command(e.kubectl, append([]string{"--kubeconfig", e.Kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// DryRun applies a manifest file with server-side dry run and strict field
// validation: the API server checks it against the installed schemas.
func (e *Env) DryRun(file string) (string, error) {
	out, err := e.Kubectl("apply", "--dry-run=server", "--validate=strict", "-f", file)
	return strings.TrimSpace(out), err
}

// Apply creates the objects of a multi-document manifest and, for documents
// that carry a status, writes it through the status subresource (create
// ignores status), as the kubelet and Cilium would.
func (e *Env) Apply(t testing.TB, file string) {
	t.Helper()
	if out, err := e.Kubectl("create", "-f", file); err != nil {
		t.Fatalf("creating the objects of %s: %v\n%s", file, err, out)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, doc := range strings.Split(string(data), "\n---") {
		if !strings.Contains(doc, "\nstatus:") {
			continue
		}
		f := filepath.Join(t.TempDir(), fmt.Sprintf("status-%d.yaml", i))
		if err := os.WriteFile(f, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, err := e.Kubectl("replace", "--subresource=status", "-f", f); err != nil {
			t.Fatalf("writing the status of document %d of %s: %v\n%s", i, file, err, out)
		}
	}
}

// Stop stops etcd and kube-apiserver (their data is kept), as in an outage.
func (e *Env) Stop(t testing.TB) {
	t.Helper()
	e.ownOnly(t, "Stop")
	if out, err := exec.Command(filepath.Join(e.repo, "hack", "kube-env.sh"), "stop", e.Dir).CombinedOutput(); err != nil {
		t.Fatalf("stopping kube-apiserver and etcd: %v\n%s", err, out)
	}
}

// Restart starts them again on the same data, after Stop.
func (e *Env) Restart(t testing.TB) {
	t.Helper()
	e.ownOnly(t, "Restart")
	if out, err := exec.Command(filepath.Join(e.repo, "hack", "kube-env.sh"), "start", e.Dir).CombinedOutput(); err != nil {
		t.Fatalf("restarting kube-apiserver and etcd: %v\n%s", err, out)
	}
}

// ownOnly fails the test if the control plane is shared: other tests use it.
func (e *Env) ownOnly(t testing.TB, what string) {
	t.Helper()
	if e.shared {
		t.Fatalf("%s: the control plane is shared with other tests (testkube.Shared); use testkube.Start", what)
	}
}

// NodeManifest is a Ready Node "nodeI" at 10.0.0.1I (status included; Apply
// writes it through the status subresource).
func NodeManifest(i int) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Node
metadata: {name: node%[1]d, labels: {kubernetes.io/os: linux}}
status:
  addresses: [{type: InternalIP, address: 10.0.0.1%[1]d}]
  conditions: [{type: Ready, status: "True", reason: KubeletReady, message: ready,
    lastHeartbeatTime: "2026-11-20T10:00:00Z", lastTransitionTime: "2026-11-20T09:00:00Z"}]
`, i)
}

// CiliumNodeManifest is nodeI's CiliumNode, with pod CIDR 10.244.I.0/24.
func CiliumNodeManifest(i int) string {
	return fmt.Sprintf(`apiVersion: cilium.io/v2
kind: CiliumNode
metadata: {name: node%[1]d}
spec:
  addresses: [{type: InternalIP, ip: 10.0.0.1%[1]d}]
  ipam: {podCIDRs: [10.244.%[1]d.0/24]}
`, i)
}
