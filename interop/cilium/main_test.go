// Package interop runs Cilium's own BGP control plane against `routewarden run`: every node of a
// scenario is one ciliumbgp agent (Cilium's pkg/bgp, its reconcilers and GoBGP instance) in a
// network namespace of its own, fed by a real kube-apiserver, peering with routewarden; the
// scenarios follow Cilium's own pkg/bgp/test/testdata cases. See README.md.
package interop

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// Inside the namespace the test re-executes itself in, envTor names it.
const envTor = "RWI_TOR_NETNS"

// skipReason says why the scenarios cannot run on this machine ("" when they can).
var skipReason string

// TestMain re-executes the test binary inside a network namespace of its own (the ToR's: a
// bridge to which every node's namespace is wired), where kube-apiserver, routewarden and
// the operator run; the nodes' agents run in namespaces of their own beside it.
func TestMain(m *testing.M) {
	if os.Getenv(envTor) != "" {
		os.Exit(m.Run())
	}
	if skipReason = whyNot(); skipReason != "" {
		os.Exit(m.Run())
	}
	os.Exit(reexecInTor())
}

// whyNot says what the harness lacks: root (network namespaces), ip(8), or the binaries and
// environment hack/cilium-interop.sh provides.
func whyNot() string {
	if os.Geteuid() != 0 {
		return "not root: the agents run in network namespaces (ip netns), which needs root; run hack/cilium-interop.sh as root"
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return "ip(8) not found (iproute2)"
	}
	for _, v := range []string{"KUBE_APISERVER", "KUBECTL", "ETCD", "ROUTEWARDEN_CRDS", "ROUTEWARDEN_BIN", "CILIUMBGP_BINS"} {
		if os.Getenv(v) == "" {
			return v + " is not set: run hack/cilium-interop.sh, which builds and sets it"
		}
	}
	return ""
}

// reexecInTor creates the ToR namespace, runs this test binary inside it and deletes it.
func reexecInTor() int {
	ns := fmt.Sprintf("rwi%d", os.Getpid())
	if err := torUp(ns); err != nil {
		fmt.Fprintln(os.Stderr, "interop: setting up the network namespace:", err)
		torDown(ns)
		return 1
	}
	defer torDown(ns)
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "interop:", err)
		return 1
	}
	cmd := exec.Command("ip", append([]string{"netns", "exec", ns, self}, os.Args[1:]...)...)
	cmd.Env = append(os.Environ(), envTor+"="+ns)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "interop:", err)
		return 1
	}
	return 0
}
