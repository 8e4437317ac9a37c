package kube

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// transformFor returns the informer transform of a resource: it strips what
// no rule reads (below) and decodes the rest into what the inventory keeps of
// the object (decoded_object.go), so that
// the informer's store holds only the fields the decoders read (types.go,
// service_types.go, bgp_types.go), once. A field a rule starts reading is
// kept when a decoder's type gains it. client-go hands each object it
// received to the transform once; an object the transform made (a
// DeletedFinalStateUnknown's, or one passed back) goes through unchanged.
// It never fails: an object routewarden cannot read is kept with its error
// (a transform error would fail the informer's whole list).
func transformFor(gvr schema.GroupVersionResource) cache.TransformFunc {
	return func(obj any) (any, error) {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			stripUnread(gvr, u)
			return decodeObjectOf(gvr, u), nil
		}
		return obj, nil
	}
}

// What no rule reads, by resource: the transform drops it before decoding,
// so that the YAML tree the decoders read is not built for a Node's images
// list, managed fields or annotations (at 5,000 nodes, building and walking
// those trees made the informers' first list take longer than the floor's
// many times over; hack/bench/notes.md, "Cluster scale"). Fields a decoder
// reads (types.go, service_types.go, bgp_types.go) must not be listed here.
var (
	droppedEverywhere = [][]string{
		{"metadata", "managedFields"},
		{"metadata", "annotations"},
		{"metadata", "ownerReferences"},
	}
	droppedByResource = map[string][][]string{
		"nodes": {
			{"status", "images"},
			{"status", "nodeInfo"},
			{"status", "capacity"},
			{"status", "allocatable"},
			{"status", "daemonEndpoints"},
			{"status", "volumesAttached"},
			{"status", "volumesInUse"},
			{"status", "config"},
			{"status", "runtimeHandlers"},
			{"status", "features"},
			{"spec", "taints"},
			{"spec", "providerID"},
		},
		"ciliumnodes": {
			{"spec", "ipam", "pool"}, // one entry per allocated IP (ENI, Azure)
			{"spec", "health"},
			{"spec", "ingress"},
			{"spec", "encryption"},
			{"spec", "eni"},
			{"spec", "azure"},
			{"spec", "alibaba-cloud"},
			{"status"},
		},
		"endpointslices": {
			{"ports"},
		},
	}
	// Per endpoint of an EndpointSlice: the pod reference, zone and hints.
	droppedPerEndpoint = [][]string{{"targetRef"}, {"hints"}, {"zone"}, {"deprecatedTopology"}}
)

// stripUnread removes, in place, what no rule reads from an object of gvr.
func stripUnread(gvr schema.GroupVersionResource, u *unstructured.Unstructured) {
	strip(u.Object, droppedEverywhere)
	strip(u.Object, droppedByResource[gvr.Resource])
	if gvr.Resource == "endpointslices" {
		if eps, ok := u.Object["endpoints"].([]any); ok {
			for _, e := range eps {
				if m, ok := e.(map[string]any); ok {
					strip(m, droppedPerEndpoint)
				}
			}
		}
	}
}

// strip removes the paths from an unstructured object.
func strip(obj map[string]any, paths [][]string) {
	for _, p := range paths {
		unstructured.RemoveNestedField(obj, p...)
	}
}

// decodedOf returns what the inventory keeps of an object an informer's
// handler received: the transform's decoding, or (objects handed over
// without the transform) the decoding of an unstructured one; nil for
// anything else.
func decodedOf(gvr schema.GroupVersionResource, obj any) *decodedObject {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	switch o := obj.(type) {
	case *decodedObject:
		return o
	case *unstructured.Unstructured:
		return decodeObjectOf(gvr, o)
	}
	return nil
}
