package testkube

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// A package's tests share control planes instead of starting one each (a
// start takes ~5 s and the CRDs seconds more): Shared lends a test a control
// plane with a Cilium release's CRDs for as long as the test runs, alone, and
// takes it back reset (reset.go) when the test ends. Tests running in
// parallel get one each, so a package starts as many as run at once, not one
// per test; they are killed when the test binary ends (Main).
//
// The lent control plane is the test's alone because the tests use fixed
// cluster-scoped names (Nodes node1..n, CiliumNodes, Cilium's BGP objects,
// kube-system/cilium-config): a namespace per test could not keep them apart.
var pool struct {
	sync.Mutex
	main bool              // Main runs the tests: it stops what Shared started
	idle map[string][]*Env // reset and ready, by Cilium release
	all  []*Env            // every control plane Shared started
}

// Main runs a package's tests (call it from TestMain) and then stops the
// control planes Shared started. A package that calls Shared must have it.
func Main(m *testing.M) {
	pool.Lock()
	pool.main = true
	pool.Unlock()
	code := m.Run()
	pool.Lock()
	defer pool.Unlock()
	for _, e := range pool.all {
		if err := e.kill(); err != nil {
			fmt.Fprintln(os.Stderr, "testkube:", err)
			code = max(code, 1)
		}
		_ = os.RemoveAll(e.Dir)
	}
	os.Exit(code)
}

// Shared lends the test a running control plane with the CRDs of Cilium
// release c and nothing else in it, shared with the package's other tests
// (never with one running at the same time): what the test creates is deleted
// when it ends. It cannot be stopped (Stop, Restart): tests of outages use
// Start. Skipped under -short, as Start.
func Shared(t testing.TB, c Cilium) *Env {
	t.Helper()
	requireControlPlane(t)
	pool.Lock()
	if !pool.main {
		pool.Unlock()
		t.Fatal("testkube.Shared needs the package's TestMain to call testkube.Main, which stops the control planes")
	}
	var e *Env
	if idle := pool.idle[c.Version]; len(idle) > 0 {
		e, pool.idle[c.Version] = idle[len(idle)-1], idle[:len(idle)-1]
	}
	pool.Unlock()
	if e == nil {
		e = startShared(t, c)
	}
	t.Cleanup(func() { giveBack(t, e, c) })
	return e
}

// startShared starts a control plane that outlives the test (Main kills it)
// and installs c's CRDs.
func startShared(t testing.TB, c Cilium) *Env {
	t.Helper()
	dir, err := os.MkdirTemp("", "testkube-shared-")
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{Dir: dir, Kubeconfig: filepath.Join(dir, "kubeconfig"), kubectl: os.Getenv("KUBECTL"), repo: Repo(),
		shared: true}
	pool.Lock()
	pool.all = append(pool.all, e)
	pool.Unlock()
	if out, err := exec.Command(filepath.Join(e.repo, "hack", "kube-env.sh"), "start", e.Dir).CombinedOutput(); err != nil {
		t.Fatalf("starting a shared kube-apiserver and etcd: %v\n%s", err, out)
	}
	e.InstallCilium(t, c)
	base, err := e.objects()
	if err != nil {
		t.Fatalf("listing the objects of a fresh control plane: %v", err)
	}
	e.baseline = base
	return e
}

// giveBack resets the control plane for the next test. After a failed test,
// or a reset that fails, it is killed instead: the next test starts another.
func giveBack(t testing.TB, e *Env, c Cilium) {
	t.Helper()
	if !t.Failed() {
		err := e.reset()
		if err == nil {
			pool.Lock()
			if pool.idle == nil {
				pool.idle = map[string][]*Env{}
			}
			pool.idle[c.Version] = append(pool.idle[c.Version], e)
			pool.Unlock()
			return
		}
		t.Errorf("resetting the shared control plane: %v", err)
	}
	if err := e.kill(); err != nil {
		t.Error(err)
	}
}
