package deploy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/testam"
	"github.com/routewarden/routewarden/internal/testkube"
	"github.com/routewarden/routewarden/internal/wait"
)

// TestChartAgainstAPIServer runs one kube-apiserver (with the Prometheus Operator's CRDs and those of the newest
// Cilium release that still has CiliumBGPPeeringPolicy, so that it serves everything routewarden may watch) for
// everything that needs one: server-side dry runs of every render and the plain manifests; the chart's NOTES;
// RBAC least privilege with the ServiceAccount's own token; and routewarden itself running with nothing but that
// token. deploy/examples are dry-run against every Cilium release by TestCiliumReleases (cmd/routewarden).
func TestChartAgainstAPIServer(t *testing.T) {
	requireHelm(t)
	env := testkube.Start(t)
	env.InstallCilium(t, testkube.CiliumWithPeeringPolicy(t))
	env.InstallPrometheusCRDs(t)
	mustKubectl(t, env, "create", "namespace", chartNamespace)
	mustKubectl(t, env, "create", "namespace", "monitoring")
	// The controller manager (not run here) gives every namespace a default ServiceAccount: the `helm test`
	// pod runs as it.
	mustKubectl(t, env, "-n", chartNamespace, "create", "serviceaccount", "default")
	// Pod Security "restricted" for routewarden's namespace: the API server warns about workloads that violate it.
	mustKubectl(t, env, "label", "namespace", chartNamespace, "pod-security.kubernetes.io/enforce=restricted",
		"pod-security.kubernetes.io/warn=restricted")

	t.Run("DryRun", func(t *testing.T) {
		for _, c := range chartCases {
			t.Run(strings.TrimSuffix(c.file, ".yaml"), func(t *testing.T) {
				rendered := mustRender(t, c.file)
				out, err := env.DryRun(writeTemp(t, "rendered.yaml", rendered))
				if err != nil {
					t.Fatalf("server-side dry run: %v\n%s", err, out)
				}
				if n, objs := strings.Count(out, "(server dry run)"), len(parseObjects(t, rendered)); n != objs {
					t.Fatalf("%d of %d objects accepted:\n%s", n, objs, out)
				}
				// Pod Security "restricted" holds, except for hostNetwork (which "baseline" already forbids).
				violates := strings.Contains(out, "would violate PodSecurity")
				if violates != c.hostNetwork {
					t.Errorf("violates Pod Security restricted: %v, want %v\n%s", violates, c.hostNetwork, out)
				}
				if c.hostNetwork && (!strings.Contains(out, "host namespaces") || strings.Contains(out, "unrestricted capabilities") ||
					strings.Contains(out, "runAsNonRoot") || strings.Contains(out, "seccompProfile") ||
					strings.Contains(out, "allowPrivilegeEscalation")) {
					t.Errorf("want only hostNetwork (and its host ports) to violate restricted:\n%s", out)
				}
			})
		}
		t.Run("manifests", func(t *testing.T) {
			if out, err := env.DryRun(manifestsFile); err != nil {
				t.Fatalf("server-side dry run of %s: %v\n%s", manifestsFile, err, out)
			}
		})
	})

	t.Run("NOTES", func(t *testing.T) {
		for _, c := range []struct {
			file string
			want []string
		}{
			{"default.yaml", []string{"kubectl -n routewarden get service routewarden-bgp", "peerASN 65000",
				"deploy/examples/cilium-bgp-v2.yaml", "routewarden validate-config --config /etc/routewarden/routewarden.yaml -",
				"No Alertmanager is configured"}},
			{"hostnetwork-1179.yaml", []string{"get pods -l app.kubernetes.io/instance=routewarden -o wide",
				"listens on port 1179: set the peer config's transport.peerPort"}},
			{"service-lb-179.yaml", []string{"AS 4200000000", "peerASN 4200000000", "10.0.0.0/24"}},
		} {
			cmd := helmCmd(t, "install", chartRelease, chartDir, "--namespace", chartNamespace, "--dry-run=client",
				"--kubeconfig", env.Kubeconfig, "--values", exampleValues,
				"--values", filepath.Join(repoDir, "deploy", "testdata", "values", c.file))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("helm install --dry-run %s: %v\n%s", c.file, err, out)
			}
			_, notes, _ := strings.Cut(string(out), "\nNOTES:\n")
			for _, w := range c.want {
				if !strings.Contains(notes, w) {
					t.Errorf("%s: NOTES lack %q:\n%s", c.file, w, notes)
				}
			}
		}
	})

	tokenKubeconfig := filepath.Join(t.TempDir(), "sa-kubeconfig")
	t.Run("RBAC", func(t *testing.T) {
		// Install the plain manifests for real (no controllers run: the Deployment stays a Deployment), and the
		// objects RBAC must tell apart.
		mustKubectl(t, env, "apply", "--server-side", "-f", manifestsFile)
		mustKubectl(t, env, "-n", "kube-system", "create", "configmap", "cilium-config",
			"--from-literal=ipam=cluster-pool", "--from-literal=cluster-pool-ipv4-cidr=10.244.0.0/16")
		mustKubectl(t, env, "-n", "kube-system", "create", "configmap", "other-config", "--from-literal=a=b")
		mustKubectl(t, env, "-n", "kube-system", "create", "secret", "generic", "some-secret", "--from-literal=a=b")
		mustKubectl(t, env, "-n", chartNamespace, "create", "secret", "generic", "routewarden-bgp", "--from-literal=password=x")

		checkCanI(t, env)
		checkCanIList(t, env)
		serviceAccountKubeconfig(t, env, tokenKubeconfig)
		checkWithToken(t, env, tokenKubeconfig)
	})

	t.Run("RunWithServiceAccount", func(t *testing.T) {
		if _, err := os.Stat(tokenKubeconfig); err != nil {
			t.Skip("no ServiceAccount token: RBAC failed")
		}
		runWithServiceAccount(t, env, tokenKubeconfig)
	})
}

// runWithServiceAccount runs the real routewarden with the chart's default config and only the ServiceAccount's
// token: its inventory must sync (every list and watch allowed), a finding must fire and reach a real
// Alertmanager, and /metrics must carry every metric family the PrometheusRule and the dashboard use.
func runWithServiceAccount(t *testing.T, env *testkube.Env, kubeconfig string) {
	am := testam.Start(t, "")
	bin := filepath.Join(t.TempDir(), "routewarden")
	build := exec.Command("go", "build", "-o", bin, "./cmd/routewarden")
	build.Dir = repoDir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// A Ready node whose CiliumNode has a CIDR nobody announces: missing-route fires.
	env.Apply(t, writeTemp(t, "node.yaml", testkube.NodeManifest(1)+"---\n"+testkube.CiliumNodeManifest(1)))

	// The chart's config, with what differs on a test machine: addresses on 127.0.0.1, the token's kubeconfig,
	// a static neighbor that never connects (its session state is a metric), no hold-down, the Alertmanager.
	var cfg map[string]any
	cm := mustFind(t, parseObjects(t, mustRender(t, "")), "ConfigMap", "routewarden")
	if err := yaml.Unmarshal([]byte(asString(dig(cm, "data", "routewarden.yaml"))), &cfg); err != nil {
		t.Fatal(err)
	}
	httpAddr, bgpAddr := loopback.FreeAddr(t), loopback.FreeAddr(t)
	_, bgpPort, _ := strings.Cut(bgpAddr, ":")
	port, _ := strconv.Atoi(bgpPort)
	asMap(cfg["kubernetes"])["kubeconfig"] = kubeconfig
	asMap(cfg["http"])["listen"] = httpAddr
	bgp := asMap(cfg["bgp"])
	bgp["listenPort"], bgp["listenAddresses"] = port, []string{"127.0.0.1"}
	bgp["neighbors"] = []any{map[string]any{"address": "127.0.0.2", "asn": 65010}}
	cfg["validation"] = map[string]any{"holdDown": "0s", "warmupTimeout": "1s"}
	alerting := asMap(cfg["alerting"])
	alerting["alertmanagers"] = []any{map[string]any{"url": am.URL()}}
	alerting["resendInterval"] = "1s"
	b, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfgFile := writeTemp(t, "routewarden.yaml", string(b))

	ctx, cancel := context.WithCancel(context.Background())
	var logs bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "run", "--config", cfgFile)
	cmd.Env = append(os.Environ(), "ROUTEWARDEN_BGP_ROUTERID=127.0.0.1") // what status.podIP gives in the pod
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil && ctx.Err() == nil {
			t.Errorf("routewarden exited: %v", err)
		}
		if t.Failed() {
			t.Logf("routewarden's log:\n%s", logs.String())
		}
	})
	get := func(path string) (int, string, error) {
		resp, err := http.Get("http://" + httpAddr + path)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), err
	}
	wait.For(t, "routewarden's /readyz (its inventory synced with the ServiceAccount's permissions)", 60*time.Second, func() error {
		select {
		case err := <-done:
			done <- err
			return fmt.Errorf("routewarden exited: %v\n%s", err, logs.String())
		default:
		}
		code, body, err := get("/readyz")
		if err != nil || code != http.StatusOK {
			return fmt.Errorf("%d %s %v", code, body, err)
		}
		return nil
	})
	wantSeries := []string{
		"routewarden_inventory_available 1",
		`routewarden_inventory_objects{resource="configmaps"} 1`,
		`routewarden_inventory_objects{resource="nodes"} 1`,
		`routewarden_inventory_objects{resource="ciliumnodes"} 1`,
		`routewarden_findings_firing{rule="missing-route",severity="critical"} 1`,
		`routewarden_bgp_peer_up{peer="127.0.0.2",state=`,
		`routewarden_alert_last_success_timestamp_seconds{sink=`,
	}
	var metrics string
	wait.For(t, "the finding and its delivery in /metrics", 60*time.Second, func() error {
		_, body, err := get("/metrics")
		if err != nil {
			return err
		}
		metrics = body
		for _, s := range wantSeries {
			if !strings.Contains(body, s) {
				return fmt.Errorf("no %s in /metrics", s)
			}
		}
		return nil
	})
	// Every family the PrometheusRule and the dashboard use is exported (watch errors only once one happens).
	families := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^# TYPE (routewarden_\S+) `).FindAllStringSubmatch(metrics, -1) {
		families[m[1]] = true
	}
	for _, name := range exportedMetrics {
		// Watch errors only after an error; the RTR server's metrics only with rtr.enabled.
		if !families[name] && name != "routewarden_inventory_watch_errors_total" && !strings.HasPrefix(name, "routewarden_rtr_") {
			t.Errorf("routewarden exports no %s", name)
		}
	}
	if strings.Contains(metrics, "routewarden_inventory_watch_errors_total{") || strings.Contains(logs.String(), "forbidden") {
		t.Errorf("watch errors or forbidden requests with the ServiceAccount's permissions:\n%s", logs.String())
	}
	alerts, err := am.Alerts("")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range alerts {
		found = found || a.Labels["alertname"] == "BGPMissingRoute" && a.Labels["prefix"] == "10.244.1.0/24"
	}
	if !found {
		t.Errorf("Alertmanager has no BGPMissingRoute for 10.244.1.0/24: %v", alerts)
	}
}
