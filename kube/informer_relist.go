package kube

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A relist (after 410 Gone) comes to the handler as client-go's Replace: the
// objects whose resource version changed, in key order, then a deletion for
// each object the list no longer has; the objects that did not change do not
// come at all. So a relist's feed has caught up only when the handler has had
// each changed and each deleted object, found by comparing the list with what
// the handler had (informer_feed.go, caughtUp).

// relistState follows one relist of a feed; guarded by Inventory.mu.
type relistState struct {
	seen    map[string]bool // the keys listed so far; nil once the list is whole
	pending map[string]bool // keys the handler has yet to get: changed or gone
}

// done reports whether there is no relist, or its list is whole and the
// handler has had every change it made.
func (r *relistState) done() bool {
	return r == nil || (r.seen == nil && len(r.pending) == 0)
}

// feedListing records a list of a feed (its first page): after the first,
// a relist, and the feed is stale until its watch runs again and the
// handler has had what the relist changed.
func (i *Inventory) feedListing(s *informerSet, gvr schema.GroupVersionResource) {
	i.metrics.lists.WithLabelValues(gvr.Resource).Inc()
	i.mu.Lock()
	f := s.feed(gvr)
	relist := f.listed
	if relist {
		f.relist = &relistState{seen: map[string]bool{}, pending: map[string]bool{}}
	}
	i.mu.Unlock()
	if relist {
		i.feedBroken(s, gvr, "listing "+gvr.Resource+" again", nil)
	}
}

// feedPage records a page of a feed's list: what a relist changed, and the
// list received in full when it is the last page.
func (i *Inventory) feedPage(s *informerSet, gvr schema.GroupVersionResource, l *unstructured.UnstructuredList) {
	last := l.GetContinue() == ""
	i.mu.Lock()
	defer i.mu.Unlock()
	f := s.feed(gvr)
	f.listed = f.listed || last
	r := f.relist
	if r == nil || r.seen == nil {
		return
	}
	had := s.objects[gvr]
	for k := range l.Items {
		item := &l.Items[k]
		key := objectKey(item.GetNamespace(), item.GetName())
		r.seen[key] = true
		if d, ok := had[key]; !ok || d.resourceVersion != item.GetResourceVersion() {
			r.pending[key] = true
		}
	}
	if !last {
		return
	}
	for key := range had {
		if !r.seen[key] {
			r.pending[key] = true // deleted while nobody watched
		}
	}
	r.seen = nil
}

// feedHandledLocked records that the handler has had an object of a feed.
func (s *informerSet) feedHandledLocked(gvr schema.GroupVersionResource, d *decodedObject) {
	f := s.feed(gvr)
	f.handledVersion(d.resourceVersion)
	if f.relist != nil {
		delete(f.relist.pending, d.key())
	}
}
