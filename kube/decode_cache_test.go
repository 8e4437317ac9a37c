package kube

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func cacheNode(name, rv, cidr string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{"name": name, "resourceVersion": rv},
		"spec":     map[string]any{"podCIDRs": []any{cidr}}}}
}

// Only an object whose resourceVersion changed is decoded again; objects gone
// leave the cache.
func TestDecodeCache(t *testing.T) {
	steps := []struct {
		name       string
		objs       map[string]*unstructured.Unstructured
		wantReused map[string]bool
		wantCIDR   map[string]string
	}{
		{name: "first build", objs: map[string]*unstructured.Unstructured{
			"a": cacheNode("a", "1", "10.0.1.0/24"), "b": cacheNode("b", "1", "10.0.2.0/24")},
			wantReused: map[string]bool{"a": false, "b": false},
			wantCIDR:   map[string]string{"a": "10.0.1.0/24", "b": "10.0.2.0/24"}},
		{name: "b changed", objs: map[string]*unstructured.Unstructured{
			"a": cacheNode("a", "1", "10.0.1.0/24"), "b": cacheNode("b", "2", "10.0.9.0/24")},
			wantReused: map[string]bool{"a": true, "b": false},
			wantCIDR:   map[string]string{"a": "10.0.1.0/24", "b": "10.0.9.0/24"}},
		{name: "a deleted", objs: map[string]*unstructured.Unstructured{"b": cacheNode("b", "2", "10.0.9.0/24")},
			wantReused: map[string]bool{"b": true}, wantCIDR: map[string]string{"b": "10.0.9.0/24"}},
	}
	cache := decodeCache{}
	for _, st := range steps {
		next := decodeCache{}
		all := &Objects{}
		for name, u := range st.objs {
			before := cache[gvrNodes][name].objs
			one, err := cache.decode(next, gvrNodes, name, u)
			if err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			if reused := one == before; reused != st.wantReused[name] {
				t.Errorf("%s: %s reused %v, want %v", st.name, name, reused, st.wantReused[name])
			}
			all.add(one)
		}
		cache = next
		if len(all.Nodes) != len(st.wantCIDR) || len(cache[gvrNodes]) != len(st.objs) {
			t.Fatalf("%s: %d nodes decoded, %d cached; want %d", st.name, len(all.Nodes), len(cache[gvrNodes]), len(st.wantCIDR))
		}
		for _, n := range all.Nodes {
			if got := n.Object.Spec.PodCIDRs[0].String(); got != st.wantCIDR[n.Object.Metadata.Name] {
				t.Errorf("%s: node %s CIDR %s, want %s", st.name, n.Object.Metadata.Name, got, st.wantCIDR[n.Object.Metadata.Name])
			}
		}
	}
}
