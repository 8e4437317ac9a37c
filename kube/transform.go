package kube

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// What no rule reads, by resource: the informers drop it before an object
// enters their store (and the inventory's map, which shares the store's
// objects), so a 5,000-node cluster's images lists, managed fields and
// last-applied annotations are not held for the life of the process
// (BENCHMARKS.md, "Cluster scale"). Fields a decoder reads (types.go,
// service_types.go, bgp_types.go) must not be listed here; what is kept is
// the whole object minus these paths, so a field a rule starts reading is
// kept unless someone drops it here.
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

// transformFor returns the informer transform of a resource: it strips the
// object in place (client-go hands each decoded object to it once).
func transformFor(gvr schema.GroupVersionResource) cache.TransformFunc {
	drop := droppedByResource[gvr.Resource]
	return func(obj any) (any, error) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return obj, nil // a DeletedFinalStateUnknown: its object was stripped when stored
		}
		strip(u.Object, droppedEverywhere)
		strip(u.Object, drop)
		if gvr.Resource == "endpointslices" {
			if eps, ok := u.Object["endpoints"].([]any); ok {
				for _, e := range eps {
					if m, ok := e.(map[string]any); ok {
						strip(m, droppedPerEndpoint)
					}
				}
			}
		}
		return u, nil
	}
}

// strip removes the paths from an unstructured object.
func strip(obj map[string]any, paths [][]string) {
	for _, p := range paths {
		unstructured.RemoveNestedField(obj, p...)
	}
}
