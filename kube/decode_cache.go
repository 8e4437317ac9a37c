package kube

import (
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// decodeCache keeps each object's decoding (Objects.Decode of the object
// alone) by resource and key, with the resourceVersion it was decoded at.
// Cluster rebuilds the validator's model after every change; with the cache
// only the objects that changed are decoded again (objectNode), not the whole
// cluster (at 5,000 nodes and 10,000 Services, a rebuild per EndpointSlice
// flip otherwise: BENCHMARKS.md, "Cluster scale").
type decodeCache map[schema.GroupVersionResource]map[string]decodedObject

type decodedObject struct {
	resourceVersion string
	objs            *Objects
	err             error
}

// decode returns u's decoding, from the cache when u has not changed since,
// and records it in next (the cache of this build: objects gone are dropped).
func (c decodeCache) decode(next decodeCache, gvr schema.GroupVersionResource, name string,
	u *unstructured.Unstructured) (*Objects, error) {
	rv := u.GetResourceVersion()
	d, ok := c[gvr][name]
	if !ok || rv == "" || d.resourceVersion != rv {
		d = decodedObject{resourceVersion: rv, objs: &Objects{}}
		n, err := objectNode(u.Object) // what decoding json.Marshal(u.Object) would read
		if err == nil {
			err = d.objs.decodeObject(gvr.Resource+"/"+name, n)
		}
		d.err = err
	}
	if next[gvr] == nil {
		next[gvr] = map[string]decodedObject{}
	}
	next[gvr][name] = d
	return d.objs, d.err
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
