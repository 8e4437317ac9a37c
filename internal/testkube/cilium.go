package testkube

import (
	"bufio"
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Cilium is one Cilium release of the version matrix: the cilium-vX.Y.Z lines
// of hack/tools/crds.txt, whose CRDs (v2/, v2alpha1/, as the release ships them
// in pkg/k8s/apis/cilium.io/client/crds) hack/tools/crds.sh links into
// $ROUTEWARDEN_CRDS.
type Cilium struct {
	Version string // "v1.17.16"
	Dir     string // the release's CRD folder
}

// String is the version, for subtest names.
func (c Cilium) String() string { return c.Version }

// Minor is the minor version: 17 for v1.17.16.
func (c Cilium) Minor() int {
	parts := strings.Split(strings.TrimPrefix(c.Version, "v"), ".")
	if len(parts) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(parts[1])
	return n
}

// BGPAPIVersion is the apiVersion of BGP control plane v2's objects
// (CiliumBGPClusterConfig, PeerConfig, Advertisement) in this release:
// cilium.io/v2 from 1.18, cilium.io/v2alpha1 before. Read from the CRDs.
func (c Cilium) BGPAPIVersion() string { return c.apiVersion("ciliumbgpclusterconfigs") }

// LBPoolAPIVersion is CiliumLoadBalancerIPPool's apiVersion in this release.
func (c Cilium) LBPoolAPIVersion() string { return c.apiVersion("ciliumloadbalancerippools") }

// HasPeeringPolicy reports whether the release has BGP control plane v1's
// CiliumBGPPeeringPolicy (cilium.io/v2alpha1; removed in 1.19).
func (c Cilium) HasPeeringPolicy() bool {
	_, err := os.Stat(filepath.Join(c.Dir, "v2alpha1", "ciliumbgppeeringpolicies.yaml"))
	return err == nil
}

// apiVersion is cilium.io/v2 when the release has the resource's CRD in v2/.
func (c Cilium) apiVersion(resource string) string {
	if _, err := os.Stat(filepath.Join(c.Dir, "v2", resource+".yaml")); err == nil {
		return "cilium.io/v2"
	}
	return "cilium.io/v2alpha1"
}

// ciliumCRDs are the CRDs of a release the tests install: those routewarden
// reads. The others (network policies, envoy configs, ...) would only slow
// the API server's start.
func ciliumCRD(name string) bool {
	return name == "ciliumnodes.yaml" || name == "ciliumpodippools.yaml" ||
		name == "ciliumloadbalancerippools.yaml" || strings.HasPrefix(name, "ciliumbgp")
}

// CiliumReleases returns the releases of the version matrix, oldest first.
func CiliumReleases(t testing.TB) []Cilium {
	t.Helper()
	dir := CRDDir(t)
	pins := filepath.Join(Repo(), "hack", "tools", "crds.txt")
	f, err := os.Open(pins)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Cilium
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, _, _ := strings.Cut(sc.Text(), " ")
		version, ok := strings.CutPrefix(name, "cilium-")
		if !ok {
			continue
		}
		c := Cilium{Version: version, Dir: filepath.Join(dir, name)}
		if _, err := os.Stat(filepath.Join(c.Dir, "v2", "ciliumnodes.yaml")); err != nil {
			t.Fatalf("Cilium %s's CRDs are missing (%v): run hack/tools/crds.sh", version, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil || len(out) == 0 {
		t.Fatalf("reading the Cilium releases of %s: %v (%d found)", pins, err, len(out))
	}
	slices.SortFunc(out, func(a, b Cilium) int { return cmp.Compare(a.Minor(), b.Minor()) })
	return out
}

// NewestCilium is the newest release of the matrix, which the end-to-end tests run against.
func NewestCilium(t testing.TB) Cilium {
	r := CiliumReleases(t)
	return r[len(r)-1]
}

// OldestCilium is the oldest release of the matrix.
func OldestCilium(t testing.TB) Cilium { return CiliumReleases(t)[0] }

// CiliumWithPeeringPolicy is the newest release that still has
// CiliumBGPPeeringPolicy: it serves every resource routewarden may watch (BGP
// control plane v1 and v2, both pool CRDs), for the tests of RBAC.
func CiliumWithPeeringPolicy(t testing.TB) Cilium {
	t.Helper()
	r := CiliumReleases(t)
	for i := len(r) - 1; i >= 0; i-- {
		if r[i].HasPeeringPolicy() {
			return r[i]
		}
	}
	t.Fatal("no release of the matrix has CiliumBGPPeeringPolicy")
	return Cilium{}
}

// InstallCiliumCRDs installs the newest release's CRDs (InstallCilium).
func (e *Env) InstallCiliumCRDs(t testing.TB) { e.InstallCilium(t, NewestCilium(t)) }

// InstallCilium installs the release's CRDs that routewarden reads, as the
// release ships them, and waits until they are established.
func (e *Env) InstallCilium(t testing.TB, c Cilium) {
	t.Helper()
	args := []string{"apply", "--server-side"}
	for _, sub := range []string{"v2", "v2alpha1"} {
		files, _ := filepath.Glob(filepath.Join(c.Dir, sub, "*.yaml"))
		for _, f := range files {
			if ciliumCRD(filepath.Base(f)) {
				args = append(args, "-f", f)
			}
		}
	}
	e.installCRDs(t, "Cilium "+c.Version, args)
}

// InstallPrometheusCRDs installs the Prometheus Operator's ServiceMonitor and
// PrometheusRule CRDs (the chart's optional objects).
func (e *Env) InstallPrometheusCRDs(t testing.TB) {
	t.Helper()
	dir := filepath.Join(CRDDir(t), "prometheus-operator")
	args := []string{"apply", "--server-side"}
	for _, kind := range []string{"servicemonitors", "prometheusrules"} {
		args = append(args, "-f", filepath.Join(dir, "monitoring.coreos.com_"+kind+".yaml"))
	}
	e.installCRDs(t, "the Prometheus Operator", args)
}

func (e *Env) installCRDs(t testing.TB, what string, args []string) {
	t.Helper()
	if out, err := e.Kubectl(args...); err != nil {
		t.Fatalf("installing the CRDs of %s: %v\n%s", what, err, out)
	}
	if out, err := e.Kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd", "--all"); err != nil {
		t.Fatalf("waiting for the CRDs of %s: %v\n%s", what, err, out)
	}
}

// NotServed reports whether a failed server-side dry run (its output) failed
// only because the API server does not serve an object's kind in its
// apiVersion (the release has no such CRD version), not for an invalid object.
func NotServed(out string) bool { return strings.Contains(out, "no matches for kind") }
