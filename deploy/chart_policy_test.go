package deploy

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// checkNetworkPolicy: rendered only when enabled, selecting the pods, ingress only, and each port open to exactly
// the configured sources.
func checkNetworkPolicy(t *testing.T, c chartCase, objs []kubeObject) {
	t.Helper()
	np := findObject(objs, "NetworkPolicy", "")
	if (np != nil) != (c.netpol != nil) {
		t.Fatalf("NetworkPolicy rendered: %v, want %v", np != nil, c.netpol != nil)
	}
	if np == nil {
		return
	}
	if fmt.Sprint(asStrings(dig(np, "spec", "policyTypes"))) != "[Ingress]" ||
		asString(dig(np, "spec", "podSelector", "matchLabels", "app.kubernetes.io/name")) != "routewarden" {
		t.Errorf("NetworkPolicy spec %v: want Ingress only, for routewarden's pods", np["spec"])
	}
	got := map[string][]string{}
	for _, rule := range asList(dig(np, "spec", "ingress")) {
		port := asString(dig(rule, "ports", "0", "port"))
		for _, from := range asList(dig(rule, "from")) {
			got[port] = append(got[port], peerText(asMap(from)))
		}
		if dig(rule, "from") == nil {
			got[port] = append(got[port], "")
		}
	}
	for _, v := range got {
		sort.Strings(v)
	}
	want := map[string][]string{}
	for k, v := range c.netpol {
		want[k] = slices.Sorted(slices.Values(v))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("NetworkPolicy sources %v, want %v", got, want)
	}
}

// peerText is a NetworkPolicyPeer in short: "10.0.0.0/24", or "pods k=v,… in k=v" for selectors.
func peerText(p kubeObject) string {
	if cidr := asString(dig(p, "ipBlock", "cidr")); cidr != "" {
		return cidr
	}
	labels := func(path ...string) string {
		var kv []string
		for k, v := range asMap(dig(p, path...)) {
			kv = append(kv, k+"="+asString(v))
		}
		sort.Strings(kv)
		return strings.Join(kv, ",")
	}
	s := "pods " + labels("podSelector", "matchLabels")
	if ns := labels("namespaceSelector", "matchLabels"); ns != "" {
		s += " in " + ns
	}
	return s
}

// checkHelmTest: `helm test` runs a pod that asks the metrics/API Service for /readyz, as a test hook, under
// Pod Security "restricted" (the API server's dry run checks that), carrying the label the NetworkPolicy lets in.
func checkHelmTest(t *testing.T, objs []kubeObject) {
	t.Helper()
	pod := mustFind(t, objs, "Pod", "routewarden-test-readyz")
	if asString(dig(pod, "metadata", "annotations", "helm.sh/hook")) != "test" ||
		asString(dig(pod, "metadata", "labels", "app.kubernetes.io/component")) != "test" ||
		asString(dig(pod, "spec", "restartPolicy")) != "Never" {
		t.Errorf("test pod metadata %v, restartPolicy %v: want a helm test hook labelled component test",
			pod["metadata"], dig(pod, "spec", "restartPolicy"))
	}
	svc := mustFind(t, objs, "Service", "routewarden")
	url := fmt.Sprintf("http://routewarden.%s.svc:%v/readyz", chartNamespace, dig(svc, "spec", "ports", "0", "port"))
	if cmd := asStrings(dig(pod, "spec", "containers", "0", "command")); !slices.Contains(cmd, url) || cmd[0] != "wget" {
		t.Errorf("test pod command %v, want wget %s", cmd, url)
	}
}
