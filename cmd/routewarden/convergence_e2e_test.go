package main

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/testkube"
	"github.com/routewarden/routewarden/internal/wait"
)

// convergenceChange is one change of /api/v1/convergence.
type convergenceChange struct {
	State, Type, Direction, Prefix, Node string
	Seconds                              float64
	Slow                                 bool
}

// The tolerance of a measured convergence time around the speakers' delay:
// the delay starts when kubectl returns, a little after the informer saw the
// change (so a little less can be measured), and the route change is seen
// after the loop's debounce (20ms) and a validation. The upper side is wide
// so that a loaded machine does not fail the test; what it shows is that the
// delay is measured, neither 0 nor a hold time.
const (
	convergenceBelow = 500 * time.Millisecond
	convergenceAbove = 2 * time.Second
)

// TestConvergenceEndToEnd: a real kube-apiserver, GoBGP speakers that follow
// each cluster change only after a delay on purpose, and routewarden run.
// Each kind of change (VIP announced by every node, VIP withdrawn, pod CIDR
// withdrawn after its node was deleted, pod CIDR announced by a new Ready
// node) is measured at /api/v1/convergence within the tolerance of the
// delay, and an announcement slower than its 2s budget fires
// slow-convergence, which resolves once the route appears. A node that stops
// announcing the VIP fires vip-missing-node.
func TestConvergenceEndToEnd(t *testing.T) {
	t.Parallel()
	c := testkube.NewestCilium(t)
	e := newE2EOn(t, c, 3, vipObjects(c), rtrBGPObjects(false)) // every node runs BGP
	e.run(t, e2eOptions{Validation: "convergence: {podCidrAnnounce: 2s, podCidrWithdraw: 30s, " +
		"vipAnnounce: 30s, vipWithdraw: 30s}"})
	e.startSpeakers(t, 3)
	e.waitHealthy(t, 3)
	const delay = 3 * time.Second
	all := []int{1, 2, 3}

	// A Service gets its LoadBalancer IP: every node announces it (ECMP), 3s later.
	e.env.Apply(t, writeFile(t, "web.yaml", vipService("web", "172.16.100.10", "Cluster")+vipEndpoints("node1")))
	time.Sleep(delay)
	for _, i := range all {
		announce(t, e.speakers[i], "172.16.100.10/32", i)
	}
	e.expectConverged(t, "vip", "announce", "172.16.100.10/32", delay, "node1", "node2", "node3")

	// node2 stops announcing it: an ECMP path is missing (vip-missing-node), until it announces again.
	withdraw(t, e.speakers[2], "172.16.100.10/32", 2)
	wait.For(t, "vip-missing-node for node2", 30*time.Second, func() error {
		return firing(e.api, "vip-missing-node", "172.16.100.10/32", "node2", true)
	})
	announce(t, e.speakers[2], "172.16.100.10/32", 2)
	wait.For(t, "vip-missing-node to resolve", 30*time.Second, func() error {
		return firing(e.api, "vip-missing-node", "172.16.100.10/32", "node2", false)
	})

	// The Service is deleted: every node withdraws it, 3s later.
	if out, err := e.env.Kubectl("-n", "shop", "delete", "service", "web"); err != nil {
		t.Fatal(out)
	}
	time.Sleep(delay)
	for _, i := range all {
		withdraw(t, e.speakers[i], "172.16.100.10/32", i)
	}
	e.expectConverged(t, "vip", "withdraw", "172.16.100.10/32", delay, "node1", "node2", "node3")

	// node3 is deleted: its CIDR goes 3s later.
	if out, err := e.env.Kubectl("delete", "node", "node3"); err != nil {
		t.Fatal(out)
	}
	time.Sleep(delay)
	withdraw(t, e.speakers[3], "10.244.3.0/24", 3)
	e.expectConverged(t, "pod-cidr", "withdraw", "10.244.3.0/24", delay, "node3")

	// node3 comes back Ready: its CIDR is announced 6s later, over the 2s
	// budget: slow-convergence fires, and resolves with the announcement.
	const slowDelay = 6 * time.Second
	e.env.Apply(t, writeFile(t, "node3.yaml", testkube.NodeManifest(3)))
	wait.For(t, "slow-convergence to fire", slowDelay, func() error {
		return firing(e.api, "slow-convergence", "10.244.3.0/24", "node3", true)
	})
	time.Sleep(slowDelay - 2*time.Second)
	announce(t, e.speakers[3], "10.244.3.0/24", 3)
	e.expectConverged(t, "pod-cidr", "announce", "10.244.3.0/24", slowDelay, "node3")
	wait.For(t, "slow-convergence to resolve", 30*time.Second, func() error {
		return firing(e.api, "slow-convergence", "10.244.3.0/24", "node3", false)
	})
	var tr struct {
		Transitions []struct{ Kind string } `json:"transitions"`
	}
	if err := getJSON(e.api+"/api/v1/transitions?rule=slow-convergence", &tr); err != nil || len(tr.Transitions) != 2 {
		t.Errorf("slow-convergence transitions %+v (%v), want fired and resolved", tr.Transitions, err)
	}
	body := metricsText(t, e.api)
	for _, want := range []string{`routewarden_convergence_seconds_count{direction="announce",kind="pod-cidr"} 1`,
		`routewarden_convergence_seconds_count{direction="announce",kind="vip"} 3`,
		`routewarden_convergence_seconds_count{direction="withdraw",kind="pod-cidr"} 1`,
		`routewarden_convergence_seconds_count{direction="withdraw",kind="vip"} 3`,
		"routewarden_convergence_pending 0"} {
		if !containsLine(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// expectConverged waits until /api/v1/convergence lists the completed change
// of prefix for each node and checks that each took delay, within tolerance.
func (e *e2e) expectConverged(t *testing.T, kind, direction, prefix string, delay time.Duration, nodes ...string) {
	t.Helper()
	got := map[string]convergenceChange{}
	wait.For(t, fmt.Sprintf("%s %s of %s by %v", kind, direction, prefix, nodes), 30*time.Second, func() error {
		var page struct{ Changes []convergenceChange }
		url := fmt.Sprintf("%s/api/v1/convergence?state=completed&type=%s&direction=%s&prefix=%s", e.api, kind,
			direction, prefix)
		if err := getJSON(url, &page); err != nil {
			return err
		}
		clear(got)
		for _, c := range page.Changes {
			got[c.Node] = c
		}
		if len(got) != len(nodes) {
			return fmt.Errorf("completed %+v", page.Changes)
		}
		return nil
	})
	for _, n := range nodes {
		c, ok := got[n]
		took := time.Duration(c.Seconds * float64(time.Second))
		t.Logf("%s %s of %s by %s: %.3fs (delay %s)", kind, direction, prefix, n, c.Seconds, delay)
		if !ok || took < delay-convergenceBelow || took > delay+convergenceAbove {
			t.Errorf("%s %s of %s by %s took %s, want %s (-%s/+%s)", kind, direction, prefix, n, took, delay,
				convergenceBelow, convergenceAbove)
		}
	}
}

// firing reports (as an error until it holds) whether a finding of rule for
// prefix and node is firing (want true) or gone (want false).
func firing(api, rule, prefix, node string, want bool) error {
	var f struct {
		Findings []struct {
			Rule, Prefix, Node string
			Firing             bool
		} `json:"findings"`
	}
	if err := getJSON(api+"/api/v1/findings", &f); err != nil {
		return err
	}
	found := false
	for _, x := range f.Findings {
		found = found || (x.Rule == rule && x.Prefix == prefix && x.Node == node && x.Firing)
	}
	if found != want {
		return fmt.Errorf("%s %s %s firing: %v, findings %+v", rule, prefix, node, found, f.Findings)
	}
	return nil
}

// metricsText is routewarden's /metrics.
func metricsText(t *testing.T, api string) string {
	t.Helper()
	resp, err := http.Get(api + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

func containsLine(text, line string) bool { return slices.Contains(strings.Split(text, "\n"), line) }
