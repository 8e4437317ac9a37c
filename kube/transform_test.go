package kube

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// The transform keeps an object's decoding (what the rules read) and its
// identity; an unreadable object is kept with its error, never a transform
// error (which would fail the informer's list).
func TestTransformDecodes(t *testing.T) {
	tests := []struct {
		name    string
		gvr     schema.GroupVersionResource
		obj     map[string]any
		key     string
		check   func(o *Objects) bool
		wantErr string
	}{
		{name: "node", gvr: gvrNodes,
			obj: map[string]any{"apiVersion": "v1", "kind": "Node",
				"metadata": map[string]any{"name": "n1", "resourceVersion": "5", "labels": map[string]any{"a": "b"},
					"annotations": map[string]any{"x": "y"}, "managedFields": []any{map[string]any{}}},
				"spec": map[string]any{"podCIDRs": []any{"10.0.0.0/24"}},
				"status": map[string]any{"images": []any{"x"},
					"addresses":  []any{map[string]any{"type": "InternalIP", "address": "10.1.0.1"}},
					"conditions": []any{map[string]any{"type": "Ready", "status": "True", "message": "ok"}}}},
			key: "n1",
			check: func(o *Objects) bool {
				n := o.Nodes[0].Object
				return len(o.Nodes) == 1 && n.Metadata.Labels["a"] == "b" && n.Spec.PodCIDRs[0].String() == "10.0.0.0/24" &&
					n.Status.Addresses[0].Address == "10.1.0.1" && n.Status.Conditions[0].Status == "True"
			}},
		{name: "endpointslice", gvr: gvrEndpointSlices,
			obj: map[string]any{"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
				"metadata":    map[string]any{"name": "s", "namespace": "ns", "labels": map[string]any{ServiceNameLabel: "svc"}},
				"addressType": "IPv4", "ports": []any{},
				"endpoints": []any{map[string]any{"addresses": []any{"10.0.0.1"}, "nodeName": "n1",
					"conditions": map[string]any{"ready": true}, "targetRef": map[string]any{}, "zone": "z"}}},
			key: "ns/s",
			check: func(o *Objects) bool {
				e := o.EndpointSlices[0].Object.Endpoints[0]
				return len(o.EndpointSlices) == 1 && e.NodeName == "n1" && e.Addresses[0].Value == "10.0.0.1" && *e.Conditions.Ready
			}},
		{name: "unreadable ciliumnode", gvr: gvrCiliumNodes,
			obj: map[string]any{"apiVersion": "cilium.io/v2", "kind": "CiliumNode", "metadata": map[string]any{"name": "n1"},
				"spec": map[string]any{"ipam": map[string]any{"podCIDRs": []any{"10.0.0.0/33"}}}},
			key: "n1", wantErr: `ciliumnodes/n1:1: CiliumNode n1: "10.0.0.0/33" is not a CIDR`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tf := transformFor(tt.gvr)
			out, err := tf(&unstructured.Unstructured{Object: tt.obj})
			if err != nil {
				t.Fatalf("transform failed: %v", err)
			}
			d, ok := out.(*decodedObject)
			if !ok {
				t.Fatalf("transform gave a %T, want a *decodedObject", out)
			}
			if d.key() != tt.key {
				t.Errorf("key %q, want %q", d.key(), tt.key)
			}
			switch {
			case tt.wantErr != "":
				if d.err == nil || !strings.Contains(d.err.Error(), tt.wantErr) {
					t.Errorf("error %v, want %q", d.err, tt.wantErr)
				}
			case d.err != nil:
				t.Errorf("error %v", d.err)
			case !tt.check(d.objs):
				t.Errorf("decoded %+v: not what the object says", d.objs)
			}
			// What the transform made goes through again unchanged (client-go
			// hands a deleted object's last state back).
			if again, _ := tf(out); again != out {
				t.Error("transformed again")
			}
			gone := cache.DeletedFinalStateUnknown{Key: tt.key, Obj: out}
			if again, _ := tf(gone); again != gone {
				t.Error("a DeletedFinalStateUnknown transformed")
			}
			if decodedOf(tt.gvr, gone) != d {
				t.Error("decodedOf(DeletedFinalStateUnknown) is not its decoding")
			}
		})
	}
}
