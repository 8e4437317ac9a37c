package kube

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/routewarden/routewarden/cilium"
)

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

// decodedObject is what the inventory keeps of an object an informer
// delivered: its identity and its decoding (cilium.Objects.Decode of the object
// alone, the same decoders as for kubectl output), made once by the
// informer's transform (transformFor) before the object enters the
// informer's store. The store and the inventory hold this and nothing else:
// not the unstructured object (a map per field, most of them no rule reads),
// not the YAML tree it was decoded from. Cluster rebuilds the validator's
// model after every change from these decodings without decoding anything
// again (BENCHMARKS.md and hack/bench/notes.md, "Cluster scale": at 5,000
// nodes and 10,000 Services the unstructured objects and a cache of their
// decodings were most of routewarden's live heap).
type decodedObject struct {
	name, namespace, resourceVersion string
	objs                             *cilium.Objects
	// err is why routewarden cannot read the object: each translation logs
	// and counts it, and leaves the object out.
	err error
}

// decodeObjectOf decodes u, an object of the resource gvr.
func decodeObjectOf(gvr schema.GroupVersionResource, u *unstructured.Unstructured) *decodedObject {
	d := &decodedObject{name: u.GetName(), namespace: u.GetNamespace(), resourceVersion: u.GetResourceVersion(),
		objs: &cilium.Objects{}}
	d.err = d.objs.DecodeUnstructured(gvr.Resource+"/"+d.key(), u.Object)
	return d
}

// key keys an informer's objects (objectKey).
func (d *decodedObject) key() string { return objectKey(d.namespace, d.name) }

// objectKey is "namespace/name", or the name of a cluster-scoped object (as
// client-go's stores key objects).
func objectKey(namespace, name string) string {
	if namespace != "" {
		return namespace + "/" + name
	}
	return name
}

// GetObjectMeta lets client-go's stores and queues key the object
// (meta.Accessor accepts a metav1.ObjectMetaAccessor).
func (d *decodedObject) GetObjectMeta() metav1.Object {
	return &metav1.ObjectMeta{Name: d.name, Namespace: d.namespace, ResourceVersion: d.resourceVersion}
}
