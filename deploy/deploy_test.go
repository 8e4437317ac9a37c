package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/internal/testam"
	"github.com/routewarden/routewarden/internal/testkube"
	"github.com/routewarden/routewarden/internal/wait"
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
)

// chartCase is one entry of the values matrix (deploy/testdata/values) and what its render must contain.
type chartCase struct {
	file        string
	replicas    int
	hostNetwork bool
	bgpPort     int
	netBind     bool   // NET_BIND_SERVICE added
	bgpService  string // type of the BGP Service, "" for none
	monitoring  bool   // ServiceMonitor, PrometheusRule and dashboard
	// secrets: Secret name → keys the pod mounts (and the config references).
	secrets map[string][]string
}

var chartCases = []chartCase{
	{file: "default.yaml", replicas: 1, bgpPort: 1179, bgpService: "ClusterIP"},
	{file: "ha-hostnetwork.yaml", replicas: 2, hostNetwork: true, bgpPort: 179, netBind: true},
	{file: "hostnetwork-1179.yaml", replicas: 1, hostNetwork: true, bgpPort: 1179},
	{file: "service-lb-179.yaml", replicas: 1, bgpPort: 179, netBind: true, bgpService: "LoadBalancer"},
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
	"routewarden_warming_up", "routewarden_routes",
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

// render runs helm template for a values file of deploy/testdata/values ("" for none) and extra flags.
func render(t testing.TB, valuesFile string, extra ...string) (string, error) {
	t.Helper()
	args := []string{"template", chartRelease, chartDir, "--namespace", chartNamespace}
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

func writeTemp(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

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

// TestChartValuesMatrix: every values file under testdata/values has expectations, and the other way round.
func TestChartValuesMatrix(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoDir, "deploy", "testdata", "values", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, f := range files {
		got = append(got, filepath.Base(f))
	}
	for _, c := range chartCases {
		want = append(want, c.file)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Fatalf("values files %v, expectations for %v", got, want)
	}
}

// TestChartLint: helm lint --strict accepts the chart with every values file.
func TestChartLint(t *testing.T) {
	for _, c := range chartCases {
		t.Run(strings.TrimSuffix(c.file, ".yaml"), func(t *testing.T) {
			cmd := helmCmd(t, "lint", "--strict", chartDir, "--namespace", chartNamespace,
				"--values", filepath.Join(repoDir, "deploy", "testdata", "values", c.file))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("helm lint: %v\n%s", err, out)
			}
		})
	}
}

// TestChartRender checks each render of the matrix: least privilege, security context, ports, probes, secrets
// wiring, HA, and that routewarden's own config loader accepts the ConfigMap.
func TestChartRender(t *testing.T) {
	appVersion := chartAppVersion(t)
	checksums := map[string]string{}
	for _, c := range chartCases {
		t.Run(strings.TrimSuffix(c.file, ".yaml"), func(t *testing.T) {
			objs := parseObjects(t, mustRender(t, c.file))
			for _, o := range objs {
				if o.kind() == "Secret" {
					t.Errorf("the chart renders a Secret (%s): secrets must come from existing Secrets", o.name())
				}
				switch {
				case o.kind() == "ClusterRole" || o.kind() == "ClusterRoleBinding":
					if o.ns() != "" {
						t.Errorf("%s has a namespace", o.id())
					}
				case o.kind() == "Role" || o.kind() == "RoleBinding":
					if o.ns() != "kube-system" {
						t.Errorf("%s is in namespace %q, want kube-system", o.id(), o.ns())
					}
				case o.kind() == "ConfigMap" && o.name() == "routewarden-dashboard":
					if o.ns() != "monitoring" {
						t.Errorf("%s is in namespace %q, want monitoring (grafanaDashboard.namespace)", o.id(), o.ns())
					}
				default:
					if o.ns() != chartNamespace {
						t.Errorf("%s is in namespace %q, want %q", o.id(), o.ns(), chartNamespace)
					}
				}
			}
			checkRBAC(t, objs)
			dep := mustFind(t, objs, "Deployment", "routewarden")
			checksums[c.file] = asString(dig(dep, "spec", "template", "metadata", "annotations", "checksum/config"))
			checkDeployment(t, c, dep, appVersion)
			checkServices(t, c, objs)
			checkConfig(t, c, objs, dep)

			pdb := findObject(objs, "PodDisruptionBudget", "")
			if (pdb != nil) != (c.replicas > 1) {
				t.Errorf("PodDisruptionBudget rendered: %v, want only with replicas > 1", pdb != nil)
			}
			if pdb != nil && (fmt.Sprint(dig(pdb, "spec", "minAvailable")) != "1" ||
				asString(dig(pdb, "spec", "unhealthyPodEvictionPolicy")) != "AlwaysAllow") {
				t.Errorf("PodDisruptionBudget spec %v, want minAvailable 1, unhealthyPodEvictionPolicy AlwaysAllow", pdb["spec"])
			}
			for _, k := range []string{"ServiceMonitor", "PrometheusRule"} {
				if (findObject(objs, k, "") != nil) != c.monitoring {
					t.Errorf("%s rendered: %v, want %v", k, !c.monitoring, c.monitoring)
				}
			}
			dash := findObject(objs, "ConfigMap", "routewarden-dashboard")
			if (dash != nil) != c.monitoring {
				t.Errorf("dashboard rendered: %v, want %v", dash != nil, c.monitoring)
			}
			if dash != nil && asString(dig(dash, "metadata", "labels", "grafana_dashboard")) != "1" {
				t.Errorf("dashboard labels %v, want grafana_dashboard: \"1\"", dig(dash, "metadata", "labels"))
			}
			if sm := findObject(objs, "ServiceMonitor", ""); sm != nil {
				if asString(dig(sm, "spec", "endpoints", "0", "port")) != "http" ||
					asString(dig(sm, "spec", "endpoints", "0", "path")) != "/metrics" ||
					asString(dig(sm, "spec", "selector", "matchLabels", "app.kubernetes.io/component")) != "metrics" {
					t.Errorf("ServiceMonitor spec %v: want the metrics Service's http port, /metrics", sm["spec"])
				}
			}
		})
	}
	// Config changes roll the pods.
	if checksums["default.yaml"] == "" || checksums["default.yaml"] == checksums["ha-hostnetwork.yaml"] {
		t.Errorf("checksum/config annotations %v: want a checksum that changes with the config", checksums)
	}
}

// checkRBAC: exactly get/list/watch on the inventory's resources, and cilium-config by name only.
func checkRBAC(t *testing.T, objs []kubeObject) {
	t.Helper()
	type rule struct{ groups, resources, names, verbs string }
	rulesOf := func(o kubeObject) []rule {
		var out []rule
		for _, r := range asList(o["rules"]) {
			out = append(out, rule{strings.Join(asStrings(dig(r, "apiGroups")), ","), strings.Join(asStrings(dig(r, "resources")), ","),
				strings.Join(asStrings(dig(r, "resourceNames")), ","), strings.Join(asStrings(dig(r, "verbs")), ",")})
		}
		return out
	}
	wantCluster := []rule{{"", "nodes", "", "get,list,watch"},
		{"cilium.io", "ciliumnodes,ciliumpodippools,ciliumloadbalancerippools", "", "get,list,watch"}}
	if got := rulesOf(mustFind(t, objs, "ClusterRole", "routewarden")); !slices.Equal(got, wantCluster) {
		t.Errorf("ClusterRole rules %+v, want %+v", got, wantCluster)
	}
	wantRole := []rule{{"", "configmaps", "cilium-config", "get,list,watch"}}
	if got := rulesOf(mustFind(t, objs, "Role", "routewarden")); !slices.Equal(got, wantRole) {
		t.Errorf("Role rules %+v, want %+v", got, wantRole)
	}
	for _, k := range []string{"ClusterRoleBinding", "RoleBinding"} {
		b := mustFind(t, objs, k, "routewarden")
		subj := fmt.Sprintf("%s/%s/%s", dig(b, "subjects", "0", "kind"), dig(b, "subjects", "0", "namespace"),
			dig(b, "subjects", "0", "name"))
		if subj != "ServiceAccount/routewarden/routewarden" || len(asList(b["subjects"])) != 1 {
			t.Errorf("%s subjects %v, want the ServiceAccount routewarden/routewarden only", k, b["subjects"])
		}
	}
	mustFind(t, objs, "ServiceAccount", "routewarden")
}

func checkDeployment(t *testing.T, c chartCase, dep kubeObject, appVersion string) {
	t.Helper()
	spec := asMap(dig(dep, "spec", "template", "spec"))
	if got := dig(dep, "spec", "replicas"); got != c.replicas {
		t.Errorf("replicas %v, want %d", got, c.replicas)
	}
	ctr := asMap(dig(spec, "containers", "0"))
	if len(asList(spec["containers"])) != 1 {
		t.Errorf("%d containers, want 1", len(asList(spec["containers"])))
	}
	if want := "ghcr.io/routewarden/routewarden:" + appVersion; ctr["image"] != want {
		t.Errorf("image %v, want %s", ctr["image"], want)
	}
	if got := strings.Join(asStrings(ctr["args"]), " "); got != "run --config /etc/routewarden/routewarden.yaml" {
		t.Errorf("args %q", got)
	}
	if asString(dig(spec, "serviceAccountName")) != "routewarden" {
		t.Errorf("serviceAccountName %v", spec["serviceAccountName"])
	}
	// Security context.
	psc := asMap(spec["securityContext"])
	sc := asMap(ctr["securityContext"])
	for _, x := range []kubeObject{psc, sc} {
		if x["runAsNonRoot"] != true || x["runAsUser"] != 65532 || asString(dig(x, "seccompProfile", "type")) != "RuntimeDefault" {
			t.Errorf("securityContext %v: want runAsNonRoot, runAsUser 65532, seccompProfile RuntimeDefault", x)
		}
	}
	if sc["readOnlyRootFilesystem"] != true || sc["allowPrivilegeEscalation"] != false || sc["privileged"] == true {
		t.Errorf("container securityContext %v: want readOnlyRootFilesystem, no privilege escalation", sc)
	}
	if got := asStrings(dig(sc, "capabilities", "drop")); !slices.Equal(got, []string{"ALL"}) {
		t.Errorf("capabilities.drop %v, want [ALL]", got)
	}
	var wantAdd []string
	if c.netBind {
		wantAdd = []string{"NET_BIND_SERVICE"}
	}
	if got := asStrings(dig(sc, "capabilities", "add")); !slices.Equal(got, wantAdd) {
		t.Errorf("capabilities.add %v, want %v (BGP port %d)", got, wantAdd, c.bgpPort)
	}
	if (c.bgpPort < 1024) != c.netBind {
		t.Fatalf("bad expectation: port %d, NET_BIND_SERVICE %v", c.bgpPort, c.netBind)
	}
	// Ports and probes.
	ports := map[string]int{}
	for _, p := range asList(ctr["ports"]) {
		ports[asString(dig(p, "name"))], _ = dig(p, "containerPort").(int)
	}
	if ports["http"] != 9479 || ports["bgp"] != c.bgpPort || len(ports) != 2 {
		t.Errorf("container ports %v, want http 9479, bgp %d", ports, c.bgpPort)
	}
	for probe, path := range map[string]string{"livenessProbe": "/healthz", "readinessProbe": "/readyz"} {
		if asString(dig(ctr, probe, "httpGet", "path")) != path || asString(dig(ctr, probe, "httpGet", "port")) != "http" {
			t.Errorf("%s %v, want GET %s on port http", probe, ctr[probe], path)
		}
	}
	if dig(ctr, "resources", "requests") == nil || dig(ctr, "resources", "limits", "memory") == nil {
		t.Errorf("resources %v: want requests and a memory limit", ctr["resources"])
	}
	// Networking and placement.
	if (spec["hostNetwork"] == true) != c.hostNetwork {
		t.Errorf("hostNetwork %v, want %v", spec["hostNetwork"], c.hostNetwork)
	}
	if c.hostNetwork && spec["dnsPolicy"] != "ClusterFirstWithHostNet" {
		t.Errorf("dnsPolicy %v, want ClusterFirstWithHostNet with hostNetwork", spec["dnsPolicy"])
	}
	anti := dig(spec, "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "0", "topologyKey")
	if c.replicas > 1 && c.hostNetwork && anti != "kubernetes.io/hostname" {
		t.Errorf("affinity %v: HA with hostNetwork needs replicas on different nodes", spec["affinity"])
	}
	if c.replicas == 1 && spec["affinity"] != nil {
		t.Errorf("affinity %v with one replica", spec["affinity"])
	}
	// The router ID: from the config, or the pod's IP.
	var routerIDEnv any
	for _, e := range asList(ctr["env"]) {
		if dig(e, "name") == "ROUTEWARDEN_BGP_ROUTERID" {
			routerIDEnv = dig(e, "valueFrom", "fieldRef", "fieldPath")
		}
	}
	if c.hostNetwork == (routerIDEnv != nil) || (routerIDEnv != nil && routerIDEnv != "status.podIP") {
		t.Errorf("ROUTEWARDEN_BGP_ROUTERID from %v: want status.podIP exactly when not hostNetwork", routerIDEnv)
	}
	// Every mount is read-only.
	for _, m := range asList(ctr["volumeMounts"]) {
		if dig(m, "readOnly") != true {
			t.Errorf("volume mount %v is not read-only", m)
		}
	}
}

func checkServices(t *testing.T, c chartCase, objs []kubeObject) {
	t.Helper()
	svc := mustFind(t, objs, "Service", "routewarden")
	if asString(dig(svc, "spec", "type")) != "ClusterIP" || dig(svc, "spec", "ports", "0", "port") != 9479 ||
		asString(dig(svc, "spec", "ports", "0", "targetPort")) != "http" || len(asList(dig(svc, "spec", "ports"))) != 1 {
		t.Errorf("metrics Service spec %v: want ClusterIP, port 9479 → http", svc["spec"])
	}
	bgp := findObject(objs, "Service", "routewarden-bgp")
	if got := asString(dig(bgp, "spec", "type")); got != c.bgpService {
		t.Fatalf("BGP Service type %q, want %q", got, c.bgpService)
	}
	if bgp != nil {
		if dig(bgp, "spec", "ports", "0", "port") != 179 || asString(dig(bgp, "spec", "ports", "0", "targetPort")) != "bgp" ||
			asString(dig(bgp, "spec", "ports", "0", "protocol")) != "TCP" {
			t.Errorf("BGP Service ports %v: want 179/TCP → bgp", dig(bgp, "spec", "ports"))
		}
		if dig(bgp, "spec", "publishNotReadyAddresses") != true {
			t.Error("the BGP Service must publish not-ready pods (readiness follows the Kubernetes API)")
		}
	}
}

var statPath = regexp.MustCompile(`stat (/\S+): `)

// checkConfig loads the ConfigMap's routewarden.yaml with routewarden's own loader (config.Load, as `run` and
// `validate-config` do). The only problems allowed are files that do not exist here but are mounted from Secrets
// in the pod; every mounted Secret key is such a file.
func checkConfig(t *testing.T, c chartCase, objs []kubeObject, dep kubeObject) {
	t.Helper()
	cm := mustFind(t, objs, "ConfigMap", "routewarden")
	data := asString(dig(cm, "data", "routewarden.yaml"))
	for _, plain := range []string{"password:", "bearerToken:", "Secret:"} {
		if strings.Contains(data, plain) {
			t.Errorf("the config contains %q:\n%s", plain, data)
		}
	}
	file := writeTemp(t, "routewarden.yaml", data)
	if c.hostNetwork {
		t.Setenv("ROUTEWARDEN_BGP_ROUTERID", "")
	} else {
		t.Setenv("ROUTEWARDEN_BGP_ROUTERID", "10.244.1.5") // what the pod gets from status.podIP
	}
	cfg, problems, err := config.Load(file)
	if err != nil || cfg == nil {
		t.Fatalf("config.Load: %v %v", err, problems)
	}
	referenced := map[string]bool{}
	for _, p := range problems {
		m := statPath.FindStringSubmatch(p.Message)
		if !strings.Contains(p.Message, "cannot read") || m == nil || !strings.HasPrefix(m[1], "/etc/routewarden/secrets/") {
			t.Errorf("config problem: %s", p)
			continue
		}
		referenced[m[1]] = true
	}
	// The files the pod has: Secret volumes' items under their mount paths.
	spec := asMap(dig(dep, "spec", "template", "spec"))
	vols := map[string]kubeObject{}
	for _, v := range asList(spec["volumes"]) {
		vols[asString(dig(v, "name"))] = asMap(v)
	}
	mounted := map[string]bool{}
	gotSecrets := map[string][]string{}
	for _, m := range asList(dig(spec, "containers", "0", "volumeMounts")) {
		v := vols[asString(dig(m, "name"))]
		if v == nil || v["secret"] == nil {
			continue
		}
		secret := asString(dig(v, "secret", "secretName"))
		if mode := dig(v, "secret", "defaultMode"); mode != 0o440 {
			t.Errorf("Secret volume %s has defaultMode %v, want 0440", secret, mode)
		}
		if asString(dig(m, "mountPath")) != "/etc/routewarden/secrets/"+secret {
			t.Errorf("Secret %s mounted at %v", secret, dig(m, "mountPath"))
		}
		for _, it := range asList(dig(v, "secret", "items")) {
			mounted[asString(dig(m, "mountPath"))+"/"+asString(dig(it, "path"))] = true
			gotSecrets[secret] = append(gotSecrets[secret], asString(dig(it, "key")))
		}
	}
	if !mapsEqual(mounted, referenced) {
		t.Errorf("Secret files mounted %v, referenced by the config %v: want the same", sortedKeys(mounted), sortedKeys(referenced))
	}
	want := c.secrets
	if want == nil {
		want = map[string][]string{}
	}
	if fmt.Sprint(gotSecrets) != fmt.Sprint(want) {
		t.Errorf("Secret keys mounted %v, want %v", gotSecrets, want)
	}
	if cfg.BGP.ListenPort != c.bgpPort {
		t.Errorf("bgp.listenPort %d, want %d", cfg.BGP.ListenPort, c.bgpPort)
	}
	if cfg.HTTP.Listen != ":9479" {
		t.Errorf("http.listen %q", cfg.HTTP.Listen)
	}
	if cfg.BGP.RouterID == "" || cfg.BGP.ASN == 0 || len(cfg.BGP.Neighbors)+len(cfg.BGP.DynamicNeighbors) == 0 {
		t.Errorf("bgp %+v: want a router ID, an ASN and peers", cfg.BGP)
	}
	if c.file == "service-lb-179.yaml" && cfg.BGP.ASN != 4200000000 {
		t.Errorf("4-byte ASN rendered as %d", cfg.BGP.ASN)
	}
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func mapsEqual(a, b map[string]bool) bool { return slices.Equal(sortedKeys(a), sortedKeys(b)) }

// TestChartRejects: settings that cannot work, and secrets written into values, fail the render with a message
// that says what to do.
func TestChartRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"ha-behind-a-service", []string{"--set", "replicas=2"}, "replicas > 1 needs bgp.hostNetwork"},
		{"hostnetwork-without-router-id", []string{"--set", "bgp.hostNetwork=true"}, "set config.bgp.routerId"},
		{"md5-password-in-values", []string{"--set", "config.bgp.neighbors[0].address=10.0.0.1",
			"--set", "config.bgp.neighbors[0].password=hunter2"}, "secrets are never taken from values"},
		{"bearer-token-in-values", []string{"--set", "config.alerting.alertmanagers[0].url=http://am:9093",
			"--set", "config.alerting.alertmanagers[0].bearerToken=abc"}, "secrets are never taken from values"},
		{"secret-without-name", []string{"--set", "config.alerting.webhooks[0].url=http://hook",
			"--set", "config.alerting.webhooks[0].bearerTokenSecret.key=token"}, "name (an existing Secret) is required"},
		{"basic-auth-without-username", []string{"--set", "config.alerting.alertmanagers[0].url=http://am:9093",
			"--set", "config.alerting.alertmanagers[0].basicAuthSecret.name=am"}, "basicAuthSecret needs username"},
		{"md5-secret-and-file", []string{"--set", "config.bgp.neighbors[0].address=10.0.0.1",
			"--set", "config.bgp.neighbors[0].passwordFile=/x", "--set", "config.bgp.neighbors[0].md5Secret.name=s"},
			"md5Secret and passwordFile are exclusive"},
		{"bad-net-bind-service", []string{"--set", "bgp.netBindService=sometimes"}, `bgp.netBindService must be one of the following: "auto", "always", "never"`},
		{"schema-replicas", []string{"--set", "replicas=0"}, "replicas"},
		{"schema-service-type", []string{"--set", "bgp.service.type=External"}, "bgp.service.type"},
		{"schema-unknown-knob", []string{"--set", "bgp.hostnetwork=true"}, "hostnetwork"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := render(t, "", c.args...)
			if err == nil {
				t.Fatalf("rendered, want an error containing %q:\n%s", c.want, out)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestManifestsUpToDate: deploy/manifests is what `make manifests` renders now.
func TestManifestsUpToDate(t *testing.T) {
	helm := requireHelm(t)
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not found")
	}
	out := filepath.Join(t.TempDir(), "routewarden.yaml")
	cmd := exec.Command("make", "-s", "-C", repoDir, "manifests", "MANIFESTS="+out)
	cmd.Env = append(os.Environ(), "HELM="+helm)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make manifests: %v\n%s", err, b)
	}
	fresh, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(manifestsFile)
	if err != nil {
		t.Fatalf("%v (run make manifests)", err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Fatalf("%s is out of date: run make manifests", manifestsFile)
	}
	// It is the default render, with the namespace in front.
	objs := parseObjects(t, string(fresh))
	if objs[0].id() != "Namespace/routewarden" || len(objs) != len(parseObjects(t, mustRender(t, "")))+1 {
		t.Fatalf("manifests: %d objects starting with %s", len(objs), objs[0].id())
	}
}

// ---------------------------------------------------------------------------------------------------------
// Prometheus

// promRules renders the PrometheusRule (default release) and writes its groups as a Prometheus rules file.
func promRules(t testing.TB, dir string) []string {
	t.Helper()
	pr := mustFind(t, parseObjects(t, mustRender(t, "", "--set", "prometheusRule.enabled=true")), "PrometheusRule", "")
	groups := map[string]any{"groups": dig(pr, "spec", "groups")}
	b, err := yaml.Marshal(groups)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules.yaml"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, g := range asList(dig(pr, "spec", "groups")) {
		for _, r := range asList(dig(g, "rules")) {
			exprs = append(exprs, asString(dig(r, "expr")))
		}
	}
	return exprs
}

// dashboardExprs returns the dashboard's queries with Grafana's variables replaced for PromQL.
func dashboardExprs(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(chartDir, "files", "dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("dashboard.json: %v", err)
	}
	r := strings.NewReplacer("$__rate_interval", "5m", "$job", ".+")
	var out []string
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("dashboard panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			out = append(out, r.Replace(tg.Expr))
		}
	}
	return out
}

var metricName = regexp.MustCompile(`\b(routewarden_[a-z_]+)`)

// usedMetrics returns the routewarden metric families an expression uses (histogram series → family).
func usedMetrics(exprs []string) map[string]bool {
	out := map[string]bool{}
	for _, e := range exprs {
		for _, m := range metricName.FindAllStringSubmatch(e, -1) {
			name := m[1]
			for _, suf := range []string{"_bucket", "_sum", "_count"} {
				if strings.HasPrefix(name, "routewarden_validation_duration_seconds") {
					name = strings.TrimSuffix(name, suf)
				}
			}
			out[name] = true
		}
	}
	return out
}

// TestPrometheusRules: promtool accepts the PrometheusRule's groups, its unit tests (testdata/prometheus) show
// every alert firing on routewarden's series and staying quiet when healthy, and the rules and the dashboard
// only use metrics routewarden exports.
func TestPrometheusRules(t *testing.T) {
	promtool := testam.RequireBinary(t, "PROMTOOL", "/usr/bin/promtool", "prometheus")
	dir := t.TempDir()
	exprs := promRules(t, dir)
	if out, err := exec.Command(promtool, "check", "rules", filepath.Join(dir, "rules.yaml")).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	tests, err := os.ReadFile(filepath.Join(repoDir, "deploy", "testdata", "prometheus", "routewarden_test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	testFile := filepath.Join(dir, "routewarden_test.yaml")
	if err := os.WriteFile(testFile, tests, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(promtool, "test", "rules", testFile).CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}
	// Every alert has a test where it fires.
	var ut struct {
		Tests []struct {
			AlertRuleTest []struct {
				Alertname string `yaml:"alertname"`
				ExpAlerts []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	if err := yaml.Unmarshal(tests, &ut); err != nil {
		t.Fatal(err)
	}
	fires := map[string]bool{}
	for _, tc := range ut.Tests {
		for _, a := range tc.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				fires[a.Alertname] = true
			}
		}
	}
	rules, _ := os.ReadFile(filepath.Join(dir, "rules.yaml"))
	for _, m := range regexp.MustCompile(`alert: (\S+)`).FindAllStringSubmatch(string(rules), -1) {
		if !fires[m[1]] {
			t.Errorf("no unit test shows %s firing", m[1])
		}
	}

	// The dashboard's queries are valid PromQL: promtool checks them as recording rules.
	dash := dashboardExprs(t)
	var rec strings.Builder
	rec.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	for i, e := range dash {
		fmt.Fprintf(&rec, "      - record: dashboard_query_%d\n        expr: %q\n", i, e)
	}
	recFile := writeTemp(t, "dashboard-rules.yaml", rec.String())
	if out, err := exec.Command(promtool, "check", "rules", recFile).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules (dashboard queries): %v\n%s", err, out)
	}
	// prometheusRule.disabled leaves alerts out.
	pr := mustFind(t, parseObjects(t, mustRender(t, "", "--set", "prometheusRule.enabled=true",
		"--set", "prometheusRule.disabled={RoutewardenBGPDecodeErrors,RoutewardenReplicaDown}")), "PrometheusRule", "")
	if n := len(asList(dig(pr, "spec", "groups", "0", "rules"))); n != len(exprs)-2 {
		t.Errorf("%d rules with two disabled, want %d", n, len(exprs)-2)
	}

	used := usedMetrics(append(exprs, dash...))
	for name := range used {
		if !slices.Contains(exportedMetrics, name) {
			t.Errorf("%s is not a metric routewarden exports", name)
		}
	}
	for _, want := range []string{"routewarden_bgp_peer_up", "routewarden_bgp_peer_routes", "routewarden_findings_firing",
		"routewarden_validation_duration_seconds", "routewarden_alert_deliveries_total"} {
		if !usedMetrics(dash)[want] {
			t.Errorf("the dashboard has no panel with %s", want)
		}
	}
}

// ---------------------------------------------------------------------------------------------------------
// The real API server

// TestChartAgainstAPIServer runs one kube-apiserver (with Cilium's and the Prometheus Operator's CRDs) for
// everything that needs one: server-side dry runs of every render, the plain manifests and the examples; the
// chart's NOTES; RBAC least privilege with the ServiceAccount's own token; and routewarden itself running with
// nothing but that token.
func TestChartAgainstAPIServer(t *testing.T) {
	requireHelm(t)
	env := testkube.Start(t)
	env.InstallCiliumCRDs(t)
	promCRDs := filepath.Join(testkube.CRDDir(), "prometheus-operator")
	mustKubectl(t, env, "apply", "--server-side", "-f", promCRDs)
	mustKubectl(t, env, "wait", "--for=condition=Established", "--timeout=60s", "crd", "--all")
	mustKubectl(t, env, "create", "namespace", chartNamespace)
	mustKubectl(t, env, "create", "namespace", "monitoring")
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

	t.Run("Examples", func(t *testing.T) {
		files, _ := filepath.Glob(filepath.Join(repoDir, "deploy", "examples", "*.y*ml"))
		if len(files) == 0 {
			t.Skip("no deploy/examples yet")
		}
		applied := 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !isKubernetesObjects(data) {
				continue // routewarden's or Alertmanager's config
			}
			applied++
			if out, err := env.DryRun(f); err != nil {
				t.Errorf("server-side dry run of %s: %v\n%s", filepath.Base(f), err, out)
			}
		}
		if applied == 0 {
			t.Error("no example is a Kubernetes manifest")
		}
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
				"--kubeconfig", env.Kubeconfig, "--values", filepath.Join(repoDir, "deploy", "testdata", "values", c.file))
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

func mustKubectl(t testing.TB, env *testkube.Env, args ...string) string {
	t.Helper()
	out, err := env.Kubectl(args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// isKubernetesObjects: every YAML document has apiVersion and kind.
func isKubernetesObjects(data []byte) bool {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	n := 0
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return n > 0
		}
		if err != nil {
			return false
		}
		if doc == nil {
			continue
		}
		if asString(doc["apiVersion"]) == "" || asString(doc["kind"]) == "" {
			return false
		}
		n++
	}
}

// checkCanI asks the API server (SubjectAccessReview through kubectl auth can-i --as) what the ServiceAccount
// may do.
func checkCanI(t *testing.T, env *testkube.Env) {
	t.Helper()
	type q struct {
		verb, resource, ns string
		want               bool
	}
	var qs []q
	for _, r := range []string{"nodes", "ciliumnodes.cilium.io", "ciliumpodippools.cilium.io",
		"ciliumloadbalancerippools.cilium.io", "configmaps/cilium-config"} {
		ns := ""
		if strings.HasPrefix(r, "configmaps") {
			ns = "kube-system"
		}
		for _, v := range []string{"get", "list", "watch"} {
			qs = append(qs, q{v, r, ns, true})
		}
		for _, v := range []string{"create", "update", "patch", "delete"} {
			qs = append(qs, q{v, r, ns, false})
		}
	}
	for _, r := range []string{"pods", "services", "deployments.apps", "ciliumbgpclusterconfigs.cilium.io"} {
		for _, v := range []string{"get", "list", "create", "delete"} {
			qs = append(qs, q{v, r, "", false})
		}
	}
	qs = append(qs, q{"*", "*", "", false}, q{"*", "*", "kube-system", false}, q{"*", "*", chartNamespace, false})
	for _, ns := range []string{"", "kube-system", chartNamespace} {
		qs = append(qs, q{"get", "secrets", ns, false}, q{"list", "secrets", ns, false}, q{"watch", "secrets", ns, false},
			q{"get", "secrets/routewarden-bgp", ns, false})
	}
	qs = append(qs,
		q{"get", "configmaps/other-config", "kube-system", false},
		q{"list", "configmaps", "kube-system", false}, // without a name: every ConfigMap
		q{"watch", "configmaps", "kube-system", false},
		q{"get", "configmaps/cilium-config", "default", false},    // another namespace
		q{"get", "configmaps/routewarden", chartNamespace, false}, // its own config comes as a volume
		q{"list", "configmaps", "", false},
		q{"impersonate", "serviceaccounts", "", false},
		q{"escalate", "clusterroles.rbac.authorization.k8s.io", "", false},
		q{"bind", "clusterroles.rbac.authorization.k8s.io", "", false},
		q{"create", "serviceaccounts/token", chartNamespace, false},
	)
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, c := range qs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			args := []string{"auth", "can-i", c.verb, c.resource, "--as=" + chartSAUser}
			if c.ns == "" {
				args = append(args, "--all-namespaces")
			} else {
				args = append(args, "-n", c.ns)
			}
			out, err := env.Kubectl(args...)
			got := strings.TrimSpace(out)
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) || (got != "yes" && !strings.HasPrefix(got, "no")) {
				mu.Lock()
				t.Errorf("kubectl %s: %v %q", strings.Join(args, " "), err, got)
				mu.Unlock()
				return
			}
			if (got == "yes") != c.want {
				mu.Lock()
				t.Errorf("can %s %s %s (namespace %q): %s, want %v", chartSAUser, c.verb, c.resource, c.ns, got, c.want)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// checkCanIList: the complete list of what the ServiceAccount may do, in kube-system and cluster-wide, is the
// chart's rules plus Kubernetes' defaults for every authenticated user (self reviews, discovery).
func checkCanIList(t *testing.T, env *testkube.Env) {
	t.Helper()
	defaults := map[string]string{
		"selfsubjectreviews.authentication.k8s.io":      "[create]",
		"selfsubjectaccessreviews.authorization.k8s.io": "[create]",
		"selfsubjectrulesreviews.authorization.k8s.io":  "[create]",
	}
	for ns, want := range map[string]map[string]string{
		"kube-system": {
			"configmaps [cilium-config]": "[get list watch]", "nodes []": "[get list watch]",
			"ciliumnodes.cilium.io []": "[get list watch]", "ciliumpodippools.cilium.io []": "[get list watch]",
			"ciliumloadbalancerippools.cilium.io []": "[get list watch]"},
		chartNamespace: {
			"nodes []": "[get list watch]", "ciliumnodes.cilium.io []": "[get list watch]",
			"ciliumpodippools.cilium.io []": "[get list watch]", "ciliumloadbalancerippools.cilium.io []": "[get list watch]"},
	} {
		out := mustKubectl(t, env, "auth", "can-i", "--list", "--as="+chartSAUser, "-n", ns)
		got := map[string]string{}
		for _, line := range strings.Split(out, "\n")[1:] {
			f := regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
			// Resource rows: Resources, Non-Resource URLs ([]), Resource Names, Verbs.
			if len(f) != 4 || f[1] != "[]" {
				continue
			}
			if v, ok := defaults[f[0]]; ok && f[2] == "[]" && f[3] == v {
				continue
			}
			got[f[0]+" "+f[2]] = f[3]
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("in namespace %s the ServiceAccount may %v, want %v\n%s", ns, got, want, out)
		}
	}
}

// serviceAccountKubeconfig writes a kubeconfig with nothing but a token of the chart's ServiceAccount (TokenRequest
// API, as the kubelet projects it into the pod) to path.
func serviceAccountKubeconfig(t *testing.T, env *testkube.Env, path string) {
	t.Helper()
	token := strings.TrimSpace(mustKubectl(t, env, "-n", chartNamespace, "create", "token", "routewarden", "--duration=1h"))
	server := strings.TrimSpace(mustKubectl(t, env, "config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}"))
	if token == "" || !strings.HasPrefix(server, "https://127.0.0.1:") {
		t.Fatalf("token %q, server %q", token, server)
	}
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
  - name: test
    cluster: {server: %q, certificate-authority: %q}
users:
  - name: routewarden
    user: {token: %q}
contexts:
  - name: routewarden
    context: {cluster: test, user: routewarden}
current-context: routewarden
`, server, filepath.Join(env.Dir, "pki", "ca.crt"), token)
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
}

// checkWithToken: with the ServiceAccount's token, the API server serves the exact requests routewarden's
// informers make (list and watch cilium-config with fieldSelector metadata.name=cilium-config, authorized by
// resourceNames; list and watch nodes) and forbids the rest.
func checkWithToken(t *testing.T, env *testkube.Env, kubeconfig string) {
	t.Helper()
	run := func(args ...string) (string, error) {
		cmd := exec.Command(os.Getenv("KUBECTL"), append([]string{"--kubeconfig", kubeconfig, "--request-timeout=20s"}, args...)...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"); err != nil || out != chartSAUser {
		t.Fatalf("auth whoami with the token: %q %v", out, err)
	}
	sel := "fieldSelector=" + url.QueryEscape("metadata.name=cilium-config")
	for _, path := range []string{
		"/api/v1/namespaces/kube-system/configmaps?" + sel,
		"/api/v1/namespaces/kube-system/configmaps?" + sel + "&watch=true&timeoutSeconds=1",
		"/api/v1/namespaces/kube-system/configmaps/cilium-config",
		"/api/v1/nodes?limit=500",
		"/api/v1/nodes?watch=true&timeoutSeconds=1",
		"/apis/cilium.io/v2/ciliumnodes?watch=true&timeoutSeconds=1",
		"/apis/cilium.io/v2alpha1/ciliumpodippools",
		"/apis/cilium.io/v2/ciliumloadbalancerippools",
	} {
		out, err := run("get", "--raw", path)
		if err != nil {
			t.Errorf("GET %s with the ServiceAccount's token: %v\n%s", path, err, out)
			continue
		}
		if strings.Contains(path, "configmaps") && !strings.Contains(out, `"name":"cilium-config"`) {
			t.Errorf("GET %s: no cilium-config in %s", path, out)
		}
	}
	// kubectl's own list with the field selector, as an operator would type it.
	if out, err := run("-n", "kube-system", "get", "configmaps", "--field-selector", "metadata.name=cilium-config", "-o", "name"); err != nil ||
		strings.TrimSpace(out) != "configmap/cilium-config" {
		t.Errorf("kubectl get configmaps --field-selector metadata.name=cilium-config: %v %q", err, out)
	}
	for _, path := range []string{
		"/api/v1/namespaces/kube-system/configmaps",
		"/api/v1/namespaces/kube-system/configmaps?watch=true&timeoutSeconds=1",
		"/api/v1/namespaces/kube-system/configmaps?fieldSelector=" + url.QueryEscape("metadata.name=other-config"),
		"/api/v1/namespaces/kube-system/configmaps/other-config",
		"/api/v1/namespaces/default/configmaps?" + sel,
		"/api/v1/namespaces/kube-system/secrets",
		"/api/v1/namespaces/routewarden/secrets/routewarden-bgp",
		"/api/v1/pods",
		"/apis/cilium.io/v2/ciliumbgpclusterconfigs",
	} {
		out, err := run("get", "--raw", path)
		if err == nil || !strings.Contains(out, "Forbidden") {
			t.Errorf("GET %s with the ServiceAccount's token: want Forbidden, got %v\n%s", path, err, out)
		}
	}
	if out, err := run("-n", "kube-system", "patch", "configmap", "cilium-config", "-p", `{"data":{"x":"y"}}`); err == nil ||
		!strings.Contains(out, "Forbidden") {
		t.Errorf("patching cilium-config with the ServiceAccount's token: want Forbidden, got %v\n%s", err, out)
	}
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
	env.Apply(t, writeTemp(t, "node.yaml", `apiVersion: v1
kind: Node
metadata: {name: node1}
status:
  addresses: [{type: InternalIP, address: 10.0.0.11}]
  conditions: [{type: Ready, status: "True", reason: KubeletReady, message: ready,
    lastHeartbeatTime: "2026-11-20T10:00:00Z", lastTransitionTime: "2026-11-20T09:00:00Z"}]
---
apiVersion: cilium.io/v2
kind: CiliumNode
metadata: {name: node1}
spec:
  addresses: [{type: InternalIP, ip: 10.0.0.11}]
  ipam: {podCIDRs: [10.244.1.0/24]}
`))

	// The chart's config, with what differs on a test machine: addresses on 127.0.0.1, the token's kubeconfig,
	// a static neighbor that never connects (its session state is a metric), no hold-down, the Alertmanager.
	var cfg map[string]any
	cm := mustFind(t, parseObjects(t, mustRender(t, "")), "ConfigMap", "routewarden")
	if err := yaml.Unmarshal([]byte(asString(dig(cm, "data", "routewarden.yaml"))), &cfg); err != nil {
		t.Fatal(err)
	}
	httpAddr, bgpAddr := testam.FreeAddr(t), testam.FreeAddr(t)
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
		if !families[name] && name != "routewarden_inventory_watch_errors_total" {
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
