package kube

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/routewarden/routewarden/cilium"
)

// decodeBoth decodes u through its JSON text (Objects.Decode) and through
// cilium.Objects.DecodeUnstructured, as the inventory now does.
func decodeBoth(t *testing.T, u *unstructured.Unstructured) (viaText, viaNode *cilium.Objects, errText, errNode error) {
	t.Helper()
	file := "nodes/" + u.GetName()
	data, err := json.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	viaText, viaNode = &cilium.Objects{}, &cilium.Objects{}
	errText = viaText.Decode(file, data)
	errNode = viaNode.DecodeUnstructured(file, u.Object)
	return viaText, viaNode, errText, errNode
}

// Every object of the scenarios' clusters (kubectl output) decodes through
// objectNode exactly as through its JSON text.
func TestObjectNodeScenarios(t *testing.T) {
	files, _ := filepath.Glob("../testdata/*/*/cluster.json")
	if len(files) == 0 {
		t.Fatal("no cluster.json under testdata")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var list unstructured.UnstructuredList
		if err := list.UnmarshalJSON(data); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, u := range list.Items {
			viaText, viaNode, errText, errNode := decodeBoth(t, &u)
			if fmt.Sprint(errText) != fmt.Sprint(errNode) || !reflect.DeepEqual(viaText, viaNode) {
				t.Errorf("%s: %s %s: via the node %+v (%v), via the text %+v (%v)", f, u.GetKind(), u.GetName(),
					viaNode, errNode, viaText, errText)
			}
		}
	}
}

// Values of every JSON type, and bad ones: the same objects, the same errors.
func TestObjectNodeValues(t *testing.T) {
	tests := []struct {
		name string
		obj  map[string]any
	}{
		{"node", map[string]any{"apiVersion": "v1", "kind": "Node",
			"metadata": map[string]any{"name": "n1", "labels": map[string]any{"a": "true", "b": "5", "c": ""}},
			"spec":     map[string]any{"podCIDRs": []any{"10.0.1.0/24", "fd00::/64"}, "unschedulable": true},
			"status": map[string]any{"addresses": []any{map[string]any{"type": "InternalIP", "address": "10.1.0.1"}},
				"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}}},
		{"floats, nulls and numbers", map[string]any{"apiVersion": "v1", "kind": "Node",
			"metadata": map[string]any{"name": "n2", "generation": int64(3), "weight": 1.5, "big": 1e21,
				"whole": float64(2), "annotations": nil},
			"spec": map[string]any{"podCIDR": nil, "podCIDRs": []any{}}}},
		{"bad CIDR", map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "n3"},
			"spec": map[string]any{"podCIDRs": []any{"10.0.1.0"}}}},
		{"CIDR not a string", map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "n4"},
			"spec": map[string]any{"podCIDRs": []any{int64(7)}}}},
		{"endpoint address not a string", map[string]any{"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
			"metadata": map[string]any{"name": "s1", "namespace": "default",
				"labels": map[string]any{"kubernetes.io/service-name": "svc"}},
			"addressType": "IPv4", "endpoints": []any{map[string]any{"addresses": []any{map[string]any{"x": "y"}}}}}},
		{"service", map[string]any{"apiVersion": "v1", "kind": "Service",
			"metadata": map[string]any{"name": "svc", "namespace": "default"},
			"spec": map[string]any{"type": "LoadBalancer", "externalTrafficPolicy": "Local",
				"ports": []any{map[string]any{"port": int64(80), "protocol": "TCP"}}},
			"status": map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "192.0.2.10"}}}}}},
		{"typed nil list", map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": map[string]any{"name": "n5"},
			"spec": map[string]any{"podCIDRs": []any(nil)}}},
		{"typed nil selector (selects nothing, not everything)", map[string]any{"apiVersion": "cilium.io/v2",
			"kind": "CiliumBGPAdvertisement", "metadata": map[string]any{"name": "ad", "labels": map[string]any(nil)},
			"spec": map[string]any{"advertisements": []any{map[string]any{"advertisementType": "Service",
				"service": map[string]any{"addresses": []any{"LoadBalancerIP"}}, "selector": map[string]any(nil)}}}}},
		{"no kind", map[string]any{"metadata": map[string]any{"name": "x"}}},
		{"other kind", map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			viaText, viaNode, errText, errNode := decodeBoth(t, &unstructured.Unstructured{Object: tt.obj})
			if fmt.Sprint(errText) != fmt.Sprint(errNode) {
				t.Errorf("error via the node %v, via the text %v", errNode, errText)
			}
			if !reflect.DeepEqual(viaText, viaNode) {
				t.Errorf("via the node %+v, via the text %+v", viaNode, viaText)
			}
		})
	}
}
