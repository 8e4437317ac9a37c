package kube

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// transformFor returns the informer transform of a resource: it decodes the
// object into what the inventory keeps of it (decoded_object.go), so that
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
			return decodeObjectOf(gvr, u), nil
		}
		return obj, nil
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
