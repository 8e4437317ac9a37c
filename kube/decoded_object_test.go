package kube

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

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
