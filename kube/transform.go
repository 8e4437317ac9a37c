package kube

import (
	"context"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
)

// transformFor returns the informer transform of a resource: it strips what
// no rule reads (below) and decodes the rest into what the inventory keeps of
// the object (decodedObject, below), so that the informer's store holds only
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

// strippedLists is the informers' dynamic client: each page of a list has
// what no rule reads stripped as soon as it has been decoded. client-go's
// reflector gathers every page of a list before handing the objects to the
// transform; a list the API server serves from etcd (after its restart, while
// its watch cache fills) comes in pages of 500, and the pages gathered whole
// were most of routewarden's memory after an API outage (hack/bench/notes.md,
// "Cluster scale").
type strippedLists struct{ dynamic.Interface }

func (c strippedLists) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return strippedResource{c.Interface.Resource(gvr), gvr}
}

type strippedResource struct {
	dynamic.NamespaceableResourceInterface
	gvr schema.GroupVersionResource
}

// Namespace is what the informers list through (all namespaces: "").
func (r strippedResource) Namespace(ns string) dynamic.ResourceInterface {
	return strippedNamespace{r.NamespaceableResourceInterface.Namespace(ns), r.gvr}
}

func (r strippedResource) List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	return stripList(r.gvr)(r.NamespaceableResourceInterface.List(ctx, opts))
}

type strippedNamespace struct {
	dynamic.ResourceInterface
	gvr schema.GroupVersionResource
}

func (r strippedNamespace) List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	return stripList(r.gvr)(r.ResourceInterface.List(ctx, opts))
}

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
// delivered: its identity and its decoding (Objects.Decode of the object
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
	objs                             *Objects
	// err is why routewarden cannot read the object: each translation logs
	// and counts it, and leaves the object out.
	err error
}

// decodeObjectOf decodes u, an object of the resource gvr.
func decodeObjectOf(gvr schema.GroupVersionResource, u *unstructured.Unstructured) *decodedObject {
	d := &decodedObject{name: u.GetName(), namespace: u.GetNamespace(), resourceVersion: u.GetResourceVersion(),
		objs: &Objects{}}
	n, err := objectNode(u.Object) // what decoding json.Marshal(u.Object) would read
	if err == nil {
		err = d.objs.decodeObject(gvr.Resource+"/"+d.key(), n)
	}
	d.err = err
	return d
}

// key keys an informer's objects: "namespace/name", or the name of a
// cluster-scoped object (as client-go's stores key them).
func (d *decodedObject) key() string {
	if d.namespace != "" {
		return d.namespace + "/" + d.name
	}
	return d.name
}

// GetObjectMeta lets client-go's stores and queues key the object
// (meta.Accessor accepts a metav1.ObjectMetaAccessor).
func (d *decodedObject) GetObjectMeta() metav1.Object {
	return &metav1.ObjectMeta{Name: d.name, Namespace: d.namespace, ResourceVersion: d.resourceVersion}
}

// add appends every list of f to o's (each slice field, so a kind added to
// Objects is merged too) and ORs ServicesRead.
func (o *Objects) add(f *Objects) {
	ov, fv := reflect.ValueOf(o).Elem(), reflect.ValueOf(f).Elem()
	for k := 0; k < ov.NumField(); k++ {
		if ov.Field(k).Kind() == reflect.Slice && fv.Field(k).Len() > 0 {
			ov.Field(k).Set(reflect.AppendSlice(ov.Field(k), fv.Field(k)))
		}
	}
	o.ServicesRead = o.ServicesRead || f.ServicesRead
	for kind, n := range f.Ignored {
		if o.Ignored == nil {
			o.Ignored = map[string]int{}
		}
		o.Ignored[kind] += n
	}
}
