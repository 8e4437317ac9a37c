package kube

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// transformFor returns the informer transform of a resource: it strips what
// no rule reads (below) and decodes the rest into what the inventory keeps of
// the object (decodedObject, decoded_object.go), so that the informer's store holds only
// the fields the decoders read (types.go, service_types.go, bgp_types.go),
// once. A field a rule starts reading is
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
// list, managed fields or annotations (a production-shaped Node: 35 kB
// allocated to strip and decode it, 110 kB to decode it whole). Fields a
// decoder reads (types.go, service_types.go, bgp_types.go) must not be
// listed here.
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

// stripList strips what no rule reads from each object of a list page, as
// soon as the page has been decoded (resumingClient's lists, informer_resume.go).
// client-go's reflector gathers every page of a list before handing the
// objects to the transform; a list the API server serves from etcd comes in
// pages of 500, and the pages gathered whole were most of routewarden's
// memory after an API outage (hack/bench/notes.md, "Cluster scale").
func stripList(gvr schema.GroupVersionResource) func(*unstructured.UnstructuredList, error) (*unstructured.UnstructuredList, error) {
	return func(l *unstructured.UnstructuredList, err error) (*unstructured.UnstructuredList, error) {
		if l != nil {
			for k := range l.Items {
				stripUnread(gvr, &l.Items[k])
			}
		}
		return l, err
	}
}

// strip removes the paths from an unstructured object.
func strip(obj map[string]any, paths [][]string) {
	for _, p := range paths {
		unstructured.RemoveNestedField(obj, p...)
	}
}
