package deploy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/internal/testfile"
	"github.com/routewarden/routewarden/internal/testkube"
)

// The chart is rendered as release "routewarden" in namespace "routewarden", like deploy/manifests.
const (
	chartRelease   = "routewarden"
	chartNamespace = "routewarden"
	chartSAUser    = "system:serviceaccount:routewarden:routewarden"
)

var (
	repoDir       = testkube.Repo()
	chartDir      = filepath.Join(repoDir, "deploy", "helm", "routewarden")
	manifestsFile = filepath.Join(repoDir, "deploy", "manifests", "routewarden.yaml")
	exampleValues = filepath.Join(repoDir, "deploy", "manifests", "example-values.yaml")
)

// chartCase is one entry of the values matrix (deploy/testdata/values) and what its render must contain.
type chartCase struct {
	file        string
	replicas    int
	hostNetwork bool
	bgpPort     int
	bmpPort     int    // the BMP station's port, 0 when off
	rtrPort     int    // the RTR server's port, 0 when off
	netBind     bool   // NET_BIND_SERVICE added
	bgpService  string // type of the BGP Service, "" for none
	monitoring  bool   // ServiceMonitor, PrometheusRule and dashboard
	// netpol: the NetworkPolicy's sources, by port name ("" for any source), when it is rendered.
	netpol map[string][]string
	// secrets: Secret name → keys the pod mounts (and the config references).
	secrets map[string][]string
}

var chartCases = []chartCase{
	{file: "default.yaml", replicas: 1, bgpPort: 1179, bgpService: "ClusterIP"},
	{file: "ha-hostnetwork.yaml", replicas: 2, hostNetwork: true, bgpPort: 179, netBind: true},
	{file: "hostnetwork-1179.yaml", replicas: 1, hostNetwork: true, bgpPort: 1179},
	{file: "service-lb-179.yaml", replicas: 1, bgpPort: 179, bmpPort: 11019, rtrPort: 8282, netBind: true, bgpService: "LoadBalancer"},
	{file: "networkpolicy.yaml", replicas: 1, bgpPort: 1179, bmpPort: 11019, rtrPort: 8282, bgpService: "ClusterIP",
		netpol: map[string][]string{"bgp": {"10.0.1.1/32", "10.0.0.0/24", "fd00:10::/64", "192.0.2.7/32"},
			"bmp": {"10.0.1.0/30"}, "rtr": {"10.0.1.1/32", "10.0.2.0/30"}, "http": {"pods app.kubernetes.io/component=test,app.kubernetes.io/instance=routewarden," +
				"app.kubernetes.io/name=routewarden", "pods app.kubernetes.io/name=prometheus in kubernetes.io/metadata.name=monitoring"}}},
	{file: "monitoring-secrets.yaml", replicas: 1, bgpPort: 1179, bgpService: "ClusterIP", monitoring: true,
		secrets: map[string][]string{
			"alertmanager-ca":          {"ca.crt"},
			"routewarden-alertmanager": {"password", "token"},
			"routewarden-bgp":          {"md5"},
			"routewarden-client-tls":   {"ca.crt", "tls.crt", "tls.key"},
			"tor-md5":                  {"password"},
			"webhook-token":            {"token"},
		}},
}

// exportedMetrics are the metric families routewarden exports (checked against a running routewarden in
// TestChartAgainstAPIServer/RunWithServiceAccount). The PrometheusRule and the dashboard may use only these.
var exportedMetrics = []string{
	"routewarden_alert_deliveries_total", "routewarden_alert_last_success_timestamp_seconds",
	"routewarden_alert_queue_dropped_total", "routewarden_alert_queue_length", "routewarden_alerts_firing",
	"routewarden_bgp_path_decode_errors_total", "routewarden_bgp_peer_routes", "routewarden_bgp_peer_up",
	"routewarden_findings", "routewarden_findings_firing", "routewarden_inventory_available",
	"routewarden_inventory_synced", "routewarden_inventory_objects", "routewarden_inventory_watch_errors_total",
	"routewarden_validation_duration_seconds", "routewarden_validation_frozen", "routewarden_validations_total",
	"routewarden_warming_up", "routewarden_routes", "routewarden_rtr_update_held", "routewarden_rtr_unresolved",
	"routewarden_convergence_seconds", "routewarden_convergence_pending",
}

// ---------------------------------------------------------------------------------------------------------
// Tools

// requireHelm returns the helm binary: $HELM (hack/test.sh), else the one hack/tools/helm.sh builds. Absent, the
// test is skipped locally and fails under CI.
func requireHelm(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("HELM"); p != "" {
		return p
	}
	cache := os.Getenv("ROUTEWARDEN_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "routewarden")
	}
	p := filepath.Join(cache, "bin", "helm")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("HELM is not set: run the tests with hack/test.sh, which builds helm (hack/tools/helm.sh)")
	}
	t.Skip("HELM is not set: run hack/test.sh (or hack/tools/helm.sh) to build helm")
	return ""
}

// helmCmd runs helm with its own cache, config and data directories (nothing of the user's is read or written).
func helmCmd(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(requireHelm(t), args...)
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
	return cmd
}

// render runs helm template with the example values (the settings the chart requires, as deploy/manifests
// has them), a values file of deploy/testdata/values ("" for none) and extra flags.
func render(t testing.TB, valuesFile string, extra ...string) (string, error) {
	t.Helper()
	args := []string{"template", chartRelease, chartDir, "--namespace", chartNamespace, "--values", exampleValues}
	if valuesFile != "" {
		args = append(args, "--values", filepath.Join(repoDir, "deploy", "testdata", "values", valuesFile))
	}
	var stdout, stderr bytes.Buffer
	cmd := helmCmd(t, append(args, extra...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("helm template: %v\n%s", err, stderr.String())
	}
	return stdout.String(), nil
}

func mustRender(t testing.TB, valuesFile string, extra ...string) string {
	t.Helper()
	out, err := render(t, valuesFile, extra...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeTemp(t testing.TB, name, content string) string { return testfile.Temp(t, name, content) }

// ---------------------------------------------------------------------------------------------------------
// Objects

type kubeObject map[string]any

func (o kubeObject) kind() string { s, _ := o["kind"].(string); return s }
func (o kubeObject) name() string { s, _ := dig(o, "metadata", "name").(string); return s }
func (o kubeObject) ns() string   { s, _ := dig(o, "metadata", "namespace").(string); return s }
func (o kubeObject) id() string   { return o.kind() + "/" + o.name() }

// dig walks maps by key and lists by index ("0", "1", …).
func dig(v any, path ...string) any {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case kubeObject:
			v = x[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func asList(v any) []any     { l, _ := v.([]any); return l }
func asString(v any) string  { s, _ := v.(string); return s }
func asMap(v any) kubeObject { m, _ := v.(map[string]any); return m }
func asStrings(v any) []string {
	var out []string
	for _, x := range asList(v) {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// parseObjects decodes a multi-document YAML stream; empty documents are skipped.
func parseObjects(t testing.TB, s string) []kubeObject {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(s))
	var out []kubeObject
	for {
		var o map[string]any
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("decoding the rendered YAML: %v", err)
		}
		if o != nil {
			out = append(out, o)
		}
	}
}

func findObject(objs []kubeObject, kind, name string) kubeObject {
	for _, o := range objs {
		if o.kind() == kind && (name == "" || o.name() == name) {
			return o
		}
	}
	return nil
}

func mustFind(t testing.TB, objs []kubeObject, kind, name string) kubeObject {
	t.Helper()
	o := findObject(objs, kind, name)
	if o == nil {
		t.Fatalf("no %s %q in the render", kind, name)
	}
	return o
}

// chartAppVersion reads appVersion from Chart.yaml.
func chartAppVersion(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		AppVersion string `yaml:"appVersion"`
	}
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c.AppVersion
}

// ---------------------------------------------------------------------------------------------------------
// Lint and render

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func mapsEqual(a, b map[string]bool) bool { return slices.Equal(sortedKeys(a), sortedKeys(b)) }

func mustKubectl(t testing.TB, env *testkube.Env, args ...string) string {
	t.Helper()
	out, err := env.Kubectl(args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}
