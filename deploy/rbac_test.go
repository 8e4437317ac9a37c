package deploy

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/routewarden/routewarden/internal/testkube"
)

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
		"ciliumloadbalancerippools.cilium.io", "configmaps/cilium-config", "services", "endpointslices.discovery.k8s.io",
		"ciliumbgpadvertisements.cilium.io", "ciliumbgppeerconfigs.cilium.io", "ciliumbgppeeringpolicies.cilium.io",
		"ciliumbgpclusterconfigs.cilium.io", "ciliumbgpnodeconfigoverrides.cilium.io"} {
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
	for _, r := range []string{"pods", "endpoints", "deployments.apps", "ciliumbgpnodeconfigs.cilium.io"} {
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

// vipRules are what the VIP rules read, cluster-wide: Services, their EndpointSlices and Cilium's BGP objects.
var vipRules = map[string]string{"services []": "[get list watch]", "endpointslices.discovery.k8s.io []": "[get list watch]",
	"ciliumbgpadvertisements.cilium.io []": "[get list watch]", "ciliumbgppeerconfigs.cilium.io []": "[get list watch]",
	"ciliumbgppeeringpolicies.cilium.io []": "[get list watch]", "ciliumbgpclusterconfigs.cilium.io []": "[get list watch]",
	"ciliumbgpnodeconfigoverrides.cilium.io []": "[get list watch]"}

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
		for k, v := range vipRules {
			want[k] = v
		}
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
		"/api/v1/services?watch=true&timeoutSeconds=1",
		"/apis/discovery.k8s.io/v1/endpointslices?limit=500",
		"/apis/cilium.io/v2/ciliumbgpadvertisements",
		"/apis/cilium.io/v2/ciliumbgppeerconfigs?watch=true&timeoutSeconds=1",
		"/apis/cilium.io/v2alpha1/ciliumbgppeeringpolicies",
		"/apis/cilium.io/v2/ciliumbgpclusterconfigs",
		"/apis/cilium.io/v2/ciliumbgpnodeconfigoverrides?watch=true&timeoutSeconds=1",
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
		"/apis/cilium.io/v2/ciliumbgpnodeconfigs",
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
