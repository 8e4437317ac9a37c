package deploy

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/config"
)

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
