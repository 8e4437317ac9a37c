package kube

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/routewarden/routewarden/cilium"
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
		check   func(o *cilium.Objects) bool
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
			check: func(o *cilium.Objects) bool {
				n := o.Nodes[0].Object
				return len(o.Nodes) == 1 && n.Metadata.Labels["a"] == "b" && n.Spec.PodCIDRs[0].String() == "10.0.0.0/24" &&
					n.Status.Addresses[0].Address == "10.1.0.1" && n.Status.Conditions[0].Status == "True"
			}},
		{name: "endpointslice", gvr: gvrEndpointSlices,
			obj: map[string]any{"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
				"metadata":    map[string]any{"name": "s", "namespace": "ns", "labels": map[string]any{cilium.ServiceNameLabel: "svc"}},
				"addressType": "IPv4", "ports": []any{},
				"endpoints": []any{map[string]any{"addresses": []any{"10.0.0.1"}, "nodeName": "n1",
					"conditions": map[string]any{"ready": true}, "targetRef": map[string]any{}, "zone": "z"}}},
			key: "ns/s",
			check: func(o *cilium.Objects) bool {
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

// Before decoding, the transform drops what no rule reads (the decoders skip
// it, but building its YAML tree costs).
func TestStripUnread(t *testing.T) {
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
			stripUnread(schema.GroupVersionResource{Resource: tt.gvr}, u)
			o := u.Object
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

// The decodings stand in client-go's stores for the objects: keyed as
// client-go keys the objects, found again, replaced and deleted by key.
func TestDecodedObjectInAStore(t *testing.T) {
	tests := []struct {
		name, namespace, want string
	}{
		{name: "node1", want: "node1"},
		{name: "svc", namespace: "default", want: "default/svc"},
	}
	store := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service",
				"metadata": map[string]any{"name": tt.name, "namespace": tt.namespace, "resourceVersion": "7"}}}
			d := decodeObjectOf(gvrServices, u)
			if got := d.key(); got != tt.want {
				t.Errorf("key %q, want %q", got, tt.want)
			}
			if got, err := cache.MetaNamespaceKeyFunc(d); err != nil || got != tt.want {
				t.Errorf("client-go's key %q (%v), want %q", got, err, tt.want)
			}
			if err := store.Add(d); err != nil {
				t.Fatal(err)
			}
			if got, ok, err := store.GetByKey(tt.want); err != nil || !ok || got != d {
				t.Errorf("GetByKey(%q) = %v, %v, %v; want the decoding", tt.want, got, ok, err)
			}
			gone := cache.DeletedFinalStateUnknown{Key: tt.want, Obj: d}
			if got, err := cache.DeletionHandlingMetaNamespaceKeyFunc(gone); err != nil || got != tt.want {
				t.Errorf("a deleted one's key %q (%v), want %q", got, err, tt.want)
			}
		})
	}
	if err := store.Replace([]any{}, "8"); err != nil || len(store.List()) != 0 {
		t.Errorf("after Replace with nothing: %d objects (%v), want 0", len(store.List()), err)
	}
}

// Each list page the informers read is stripped as it comes, before
// client-go gathers the pages; an error goes through.
func TestStripList(t *testing.T) {
	page := &unstructured.UnstructuredList{Items: []unstructured.Unstructured{{Object: map[string]any{
		"metadata": map[string]any{"name": "n1", "managedFields": []any{}},
		"status":   map[string]any{"images": []any{"x"}, "addresses": []any{}}}}}}
	l, err := stripList(gvrNodes)(page, nil)
	if err != nil || l != page {
		t.Fatalf("got %v, %v; want the page", l, err)
	}
	o := l.Items[0].Object
	if _, ok, _ := unstructured.NestedFieldNoCopy(o, "status", "images"); ok {
		t.Error("images kept")
	}
	if _, ok, _ := unstructured.NestedFieldNoCopy(o, "status", "addresses"); !ok {
		t.Error("addresses dropped")
	}
	if _, err := stripList(gvrNodes)(nil, context.Canceled); err != context.Canceled {
		t.Errorf("error %v, want it passed on", err)
	}
}
