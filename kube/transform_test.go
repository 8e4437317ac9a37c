package kube

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestTransformKeepsWhatRulesRead(t *testing.T) {
	tests := []struct {
		name    string
		gvr     string
		obj     map[string]any
		dropped [][]string
		kept    [][]string
	}{
		{name: "node", gvr: "nodes",
			obj: map[string]any{"metadata": map[string]any{"name": "n1", "labels": map[string]any{"a": "b"},
				"annotations": map[string]any{"x": "y"}, "managedFields": []any{map[string]any{}},
				"deletionTimestamp": "2026-01-01T00:00:00Z"},
				"spec": map[string]any{"podCIDRs": []any{"10.0.0.0/24"}},
				"status": map[string]any{"images": []any{"x"}, "addresses": []any{}, "conditions": []any{},
					"nodeInfo": map[string]any{}}},
			dropped: [][]string{{"metadata", "annotations"}, {"metadata", "managedFields"}, {"status", "images"},
				{"status", "nodeInfo"}},
			kept: [][]string{{"metadata", "labels"}, {"metadata", "deletionTimestamp"}, {"spec", "podCIDRs"},
				{"status", "addresses"}, {"status", "conditions"}}},
		{name: "ciliumnode", gvr: "ciliumnodes",
			obj: map[string]any{"metadata": map[string]any{"name": "n1"},
				"spec":   map[string]any{"addresses": []any{}, "ipam": map[string]any{"podCIDRs": []any{}, "pool": map[string]any{}}},
				"status": map[string]any{"ipam": map[string]any{}}},
			dropped: [][]string{{"spec", "ipam", "pool"}, {"status"}},
			kept:    [][]string{{"spec", "addresses"}, {"spec", "ipam", "podCIDRs"}}},
		{name: "endpointslice", gvr: "endpointslices",
			obj: map[string]any{"metadata": map[string]any{"name": "s", "labels": map[string]any{}},
				"addressType": "IPv4", "ports": []any{},
				"endpoints": []any{map[string]any{"addresses": []any{"10.0.0.1"}, "nodeName": "n1",
					"conditions": map[string]any{}, "targetRef": map[string]any{}, "zone": "z"}}},
			dropped: [][]string{{"ports"}},
			kept:    [][]string{{"metadata", "labels"}, {"addressType"}, {"endpoints"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: tt.obj}
			out, err := transformFor(gvrNodes.GroupResource().WithVersion("v1").GroupVersion().WithResource(tt.gvr))(u)
			if err != nil {
				t.Fatal(err)
			}
			o := out.(*unstructured.Unstructured).Object
			for _, p := range tt.dropped {
				if _, ok, _ := unstructured.NestedFieldNoCopy(o, p...); ok {
					t.Errorf("%v kept, want it dropped", p)
				}
			}
			for _, p := range tt.kept {
				if _, ok, _ := unstructured.NestedFieldNoCopy(o, p...); !ok {
					t.Errorf("%v dropped, want it kept", p)
				}
			}
			if tt.gvr == "endpointslices" {
				ep := o["endpoints"].([]any)[0].(map[string]any)
				if _, ok := ep["targetRef"]; ok || ep["nodeName"] != "n1" {
					t.Errorf("endpoint = %v, want targetRef dropped and nodeName kept", ep)
				}
			}
		})
	}
}
