package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/testam"
	"github.com/routewarden/routewarden/internal/testkube"
	"github.com/routewarden/routewarden/internal/wait"
)

// TestRunEndToEnd: real kube-apiserver + etcd with Cilium's CRDs, real GoBGP
// speakers as nodes, a real Alertmanager, and routewarden run.
func TestRunEndToEnd(t *testing.T) {
	t.Parallel()
	am := testam.Start(t, "")
	e := startE2E(t, e2eOptions{Alerting: fmt.Sprintf("  resendInterval: 2s\n  alertmanagers: [{url: %s}]", am.URL()),
		StopsAPI: true})
	env, cfgFile, speakers, api := e.env, e.cfgFile, e.speakers, e.api
	ctx := context.Background()

	checkMetrics(t, api+"/metrics")

	// A Node deleted while its machine keeps announcing: BGPStaleRoute; recreated: resolved.
	if out, err := env.Kubectl("delete", "node", "node2"); err != nil {
		t.Fatal(out)
	}
	wait.For(t, "BGPStaleRoute in Alertmanager", 60*time.Second, alertIn(am, "BGPStaleRoute", "10.244.2.0/24", "", true))
	env.Apply(t, writeFile(t, "node2.yaml", testkube.NodeManifest(2)))
	wait.For(t, "BGPStaleRoute to resolve", 60*time.Second, alertIn(am, "BGPStaleRoute", "10.244.2.0/24", "", false))

	// A speaker announcing another node's CIDR: BGPForeignCIDR.
	announce(t, speakers[1], "10.244.3.0/24", 1)
	wait.For(t, "BGPForeignCIDR", 60*time.Second, alertIn(am, "BGPForeignCIDR", "10.244.3.0/24", "node1", true))

	// A node withdrawing its CIDR: BGPMissingRoute.
	withdraw(t, speakers[3], "10.244.3.0/24", 3)
	wait.For(t, "BGPMissingRoute", 60*time.Second, alertIn(am, "BGPMissingRoute", "10.244.3.0/24", "node3", true))

	// Config reload: an invalid file is refused and the running config stays; a valid change
	// (missing-route disabled) applies live, and every BGP session stays up.
	original, _ := os.ReadFile(cfgFile)
	if err := os.WriteFile(cfgFile, append(append([]byte(nil), original...), "rules: {bogus-rule: {}}\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	wait.True(t, "the invalid config to be refused", time.Minute, func() bool {
		return strings.Contains(e.logs.String(), "config reload refused")
	})
	if err := os.WriteFile(cfgFile, append(original, "rules: {missing-route: {enabled: false}}\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	wait.For(t, "BGPMissingRoute to resolve after the reload", 60*time.Second,
		alertIn(am, "BGPMissingRoute", "10.244.3.0/24", "node3", false))
	for i, s := range speakers {
		if !s.Established(ctx) {
			t.Errorf("node%d's session dropped during the reload", i)
		}
	}

	// The Kubernetes API goes away: one RoutewardenInventoryUnavailable alert, nothing
	// resolved or invented from the cache's silence; it comes back: the alert resolves.
	before := alertNames(t, am)
	env.Stop(t)
	wait.For(t, "RoutewardenInventoryUnavailable", 60*time.Second,
		alertIn(am, "RoutewardenInventoryUnavailable", "", "", true))
	during := alertNames(t, am)
	if len(during) != len(before)+1 {
		t.Errorf("during the outage Alertmanager shows %v, want %v plus the inventory alert", during, before)
	}
	env.Restart(t)
	wait.For(t, "RoutewardenInventoryUnavailable to resolve", 90*time.Second,
		alertIn(am, "RoutewardenInventoryUnavailable", "", "", false))
	if after := alertNames(t, am); len(after) != len(before) {
		t.Errorf("after the outage Alertmanager shows %v, want %v", after, before)
	}
}

// checkMetrics runs promtool check metrics on what /metrics serves, and checks
// the series the deploy's alerting rules use are there.
func checkMetrics(t *testing.T, url string) {
	t.Helper()
	promtool := testam.RequireBinary(t, "PROMTOOL", "/usr/bin/promtool", "prometheus")
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
	for _, series := range []string{"routewarden_bgp_peer_up{", "routewarden_bgp_peer_routes{",
		`routewarden_findings{rule="stale-route",severity="critical"} 0`, "routewarden_validation_duration_seconds_bucket",
		"routewarden_inventory_available 1", "routewarden_alert_deliveries_total", "routewarden_warming_up 0"} {
		if !strings.Contains(string(body), series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
}
