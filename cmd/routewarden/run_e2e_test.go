package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/logbuf"
	"github.com/routewarden/routewarden/internal/loopback"

	"github.com/routewarden/routewarden/internal/wait"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp"
	"github.com/routewarden/routewarden/internal/testam"
	"github.com/routewarden/routewarden/internal/testkube"
)

const e2eCiliumConfig = `apiVersion: v1
kind: ConfigMap
metadata: {name: cilium-config, namespace: kube-system}
data: {ipam: cluster-pool, cluster-pool-ipv4-cidr: 10.244.0.0/16, enable-bgp-control-plane: "true"}
`

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// alertIn checks Alertmanager shows (or no longer shows) an alert.
func alertIn(am *testam.Alertmanager, alertname, prefix, node string, present bool) func() error {
	return func() error {
		alerts, err := am.Alerts("")
		if err != nil {
			return err
		}
		found := false
		for _, a := range alerts {
			if a.Labels["alertname"] == alertname && a.Labels["prefix"] == prefix && a.Labels["node"] == node {
				found = true
			}
		}
		if found != present {
			return fmt.Errorf("%s %s node=%q present=%v, want %v (alerts: %d)", alertname, prefix, node, found, present,
				len(alerts))
		}
		return nil
	}
}

// TestRunEndToEnd: real kube-apiserver + etcd with Cilium's CRDs, real GoBGP
// speakers as nodes, a real Alertmanager, and routewarden run.
func TestRunEndToEnd(t *testing.T) {
	env := testkube.Start(t)
	env.InstallCiliumCRDs(t)
	docs := []string{e2eCiliumConfig}
	for i := 1; i <= 3; i++ {
		docs = append(docs, testkube.NodeManifest(i), testkube.CiliumNodeManifest(i))
	}
	env.Apply(t, writeFile(t, "cluster.yaml", strings.Join(docs, "---\n")))
	am := testam.Start(t, "")

	bgpPort := loopback.FreePort(t)
	httpAddr := loopback.FreeAddr(t)
	cfgFile := writeFile(t, "routewarden.yaml", fmt.Sprintf(`cluster: {name: e2e}
bgp:
  asn: 65000
  routerId: 192.0.2.1
  listenAddresses: [127.0.0.1]
  listenPort: %d
  gracefulRestart: {enabled: false}
  dynamicNeighbors: [{prefix: 127.0.1.0/24}]
kubernetes: {kubeconfig: %s}
validation: {holdDown: 0s, warmupTimeout: 1s}
alerting:
  resendInterval: 2s
  alertmanagers: [{url: %s}]
http: {listen: "%s"}
`, bgpPort, env.Kubeconfig, am.URL(), httpAddr))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	stderr := &logbuf.Buffer{}
	go func() {
		done <- execute(ctx, []string{"run", "--config", cfgFile, "--log-format", "json"}, strings.NewReader(""),
			&strings.Builder{}, stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("routewarden run exited %d:\n%s", code, stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Error("routewarden run did not stop within 30s of SIGTERM-equivalent cancellation")
		}
	})

	speakers := map[int]*bgp.Speaker{}
	for i := 1; i <= 3; i++ {
		s, err := bgp.StartSpeaker(ctx, bgp.SpeakerConfig{Local: netip.MustParseAddr(fmt.Sprintf("127.0.1.%d", 10+i)),
			ASN: 65010, CollectorAddr: netip.MustParseAddr("127.0.0.1"), CollectorPort: bgpPort, CollectorASN: 65000},
			zerolog.Nop())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Stop)
		speakers[i] = s
		announce(t, s, fmt.Sprintf("10.244.%d.0/24", i), i)
	}
	api := "http://" + httpAddr
	wait.For(t, "a healthy cluster: ready, warmed up, 3 routes, no finding", 90*time.Second, func() error {
		var f struct {
			WarmingUp bool `json:"warmingUp"`
			Summary   struct {
				Routes int `json:"routes"`
			} `json:"summary"`
			Findings []json.RawMessage `json:"findings"`
		}
		if err := getJSON(api+"/api/v1/findings", &f); err != nil {
			return err
		}
		if f.WarmingUp || f.Summary.Routes != 3 || len(f.Findings) != 0 {
			return fmt.Errorf("warmingUp %v, routes %d, findings %d", f.WarmingUp, f.Summary.Routes, len(f.Findings))
		}
		return getJSON(api+"/readyz", nil)
	})

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
	if err := speakers[3].Withdraw(ctx, netip.MustParsePrefix("10.244.3.0/24"), netip.MustParseAddr("10.0.0.13")); err != nil {
		t.Fatal(err)
	}
	wait.For(t, "BGPMissingRoute", 60*time.Second, alertIn(am, "BGPMissingRoute", "10.244.3.0/24", "node3", true))

	// Config reload: an invalid file is refused and the running config stays; a valid change
	// (missing-route disabled) applies live, and every BGP session stays up.
	original, _ := os.ReadFile(cfgFile)
	if err := os.WriteFile(cfgFile, append(append([]byte(nil), original...), "rules: {bogus-rule: {}}\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	wait.True(t, "the invalid config to be refused", time.Minute, func() bool {
		return strings.Contains(stderr.String(), "config reload refused")
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

// alertNames lists the alerts Alertmanager shows, as "alertname prefix node".
func alertNames(t *testing.T, am *testam.Alertmanager) []string {
	t.Helper()
	alerts, err := am.Alerts("")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range alerts {
		out = append(out, a.Labels["alertname"]+" "+a.Labels["prefix"]+" "+a.Labels["node"])
	}
	slices.Sort(out)
	return out
}

func announce(t *testing.T, s *bgp.Speaker, prefix string, node int) {
	t.Helper()
	nh := netip.MustParseAddr(fmt.Sprintf("10.0.0.1%d", node))
	if err := s.Announce(context.Background(), netip.MustParsePrefix(prefix), nh); err != nil {
		t.Fatal(err)
	}
}

func getJSON(url string, into any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if into == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(into)
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
