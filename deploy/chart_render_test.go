package deploy

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
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
			cmd := helmCmd(t, "lint", "--strict", chartDir, "--namespace", chartNamespace, "--values", exampleValues,
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
			checkNetworkPolicy(t, c, objs)
			checkHelmTest(t, objs)

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
	wantCluster := []rule{{"", "nodes,services", "", "get,list,watch"},
		{"discovery.k8s.io", "endpointslices", "", "get,list,watch"},
		{"cilium.io", "ciliumnodes,ciliumpodippools,ciliumloadbalancerippools,ciliumbgpadvertisements," +
			"ciliumbgppeerconfigs,ciliumbgppeeringpolicies,ciliumbgpclusterconfigs,ciliumbgpnodeconfigoverrides", "",
			"get,list,watch"}}
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

// TestChartRejects: settings that cannot work, and secrets written into values, fail the render with a message
// that says what to do.
func TestChartRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"range-with-any-asn", []string{"--set", "config.bgp.dynamicNeighbors[0].asn=0"},
			"config.bgp.dynamicNeighbors.0.asn: Must be greater than or equal to 1"},
		{"accept-all-range", []string{"--set", "config.bgp.dynamicNeighbors[0].prefix=0.0.0.0/0"},
			"config.bgp.dynamicNeighbors[0].prefix: 0.0.0.0/0 accepts a session from any address"},
		{"asn-zero", []string{"--set", "config.bgp.asn=0"}, "config.bgp.asn: Must be greater than or equal to 1"},
		{"schema-config-typo", []string{"--set", "config.cluster.nmae=prod"}, "Additional property nmae is not allowed"}, //nolint:misspell // the typo is the test
		{"schema-deep-typo", []string{"--set", "config.alerting.alertmanagers[0].url=http://am:9093",
			"--set", "config.alerting.alertmanagers[0].timout=5s"}, "Additional property timout is not allowed"},
		{"schema-rule-name", []string{"--set", "config.rules.stale-routes.enabled=false"}, "config.rules"},
		{"schema-capabilities", []string{"--set", "securityContext.capabilities.add[0]=NET_ADMIN"},
			"Additional property capabilities is not allowed"},
		{"networkpolicy-hostnetwork", []string{"--set", "networkPolicy.enabled=true", "--set", "bgp.hostNetwork=true",
			"--set", "config.bgp.routerId=192.0.2.1"}, "a NetworkPolicy does not apply to host-network pods"},
		{"ha-behind-a-service", []string{"--set", "replicas=2"}, "replicas > 1 needs bgp.hostNetwork"},
		{"hostnetwork-without-router-id", []string{"--set", "bgp.hostNetwork=true"}, "set config.bgp.routerId"},
		{"md5-password-in-values", []string{"--set", "config.bgp.neighbors[0].address=10.0.0.1",
			"--set", "config.bgp.neighbors[0].password=hunter2"}, "secrets are never taken from values"},
		{"bearer-token-in-values", []string{"--set", "config.alerting.alertmanagers[0].url=http://am:9093",
			"--set", "config.alerting.alertmanagers[0].bearerToken=abc"}, "secrets are never taken from values"},
		{"secret-without-name", []string{"--set", "config.alerting.webhooks[0].url=http://hook",
			"--set", "config.alerting.webhooks[0].bearerTokenSecret.key=token"}, "bearerTokenSecret: name is required"},
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

// TestChartRequiresPeers: without the example values the chart names what the install must set: routewarden's
// ASN, and its peers (the nodes' range with their ASN).
func TestChartRequiresPeers(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"nothing", nil, "config.bgp.asn is required: routewarden's own AS number"},
		{"no-peers", []string{"--set", "config.bgp.asn=65000"},
			"config.bgp.dynamicNeighbors (or neighbors) is required: name your nodes' range and their ASN"},
		{"range-without-asn", []string{"--set", "config.bgp.asn=65000", "--set",
			"config.bgp.dynamicNeighbors[0].prefix=10.0.0.0/24"}, "config.bgp.dynamicNeighbors.0: asn is required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, err := helmCmd(t, append([]string{"template", chartRelease, chartDir}, c.args...)...).CombinedOutput()
			if err == nil || !strings.Contains(string(out), c.want) {
				t.Fatalf("%v %s, want an error containing %q", err, out, c.want)
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
	// It is the render with the example values and without the test pod, with the namespace in front.
	objs := parseObjects(t, string(fresh))
	if objs[0].id() != "Namespace/routewarden" || len(objs) != len(parseObjects(t, mustRender(t, "", "--skip-tests")))+1 {
		t.Fatalf("manifests: %d objects starting with %s", len(objs), objs[0].id())
	}
}
