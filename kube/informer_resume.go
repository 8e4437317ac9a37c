package kube

import (
	"context"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// resumingClient is the dynamic client an informer set lists and watches
// through. It strips each list page as it comes (stripList, transform.go),
// tells the inventory each feed's state (informer_feed.go), and retries a
// list or a watch that failed in a way that passes (retryAfter,
// informer_retry.go) instead of returning the error to client-go's reflector. The reflector would back off, up to
// 30 s and jittered to 60 s after a long outage, before it even tried again;
// retried here, a watch resumes from the feed's resource version within a
// second of the API server being back, and a relist, when one is needed,
// waits for the watch cache rather than being served from etcd in pages of
// 500.
type resumingClient struct {
	dynamic.Interface
	inv *Inventory
	set *informerSet
}

func (c resumingClient) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return resumingResource{c.Interface.Resource(gvr), resumer{c.inv, c.set, gvr}}
}

type resumingResource struct {
	dynamic.NamespaceableResourceInterface
	r resumer
}

// Namespace is what the informers list and watch through, cluster-scoped
// resources too (namespace ""): client-go's dynamic informers never list or
// watch on the resource itself.
func (r resumingResource) Namespace(ns string) dynamic.ResourceInterface {
	return resumingNamespace{r.NamespaceableResourceInterface.Namespace(ns), r.r}
}

type resumingNamespace struct {
	dynamic.ResourceInterface
	r resumer
}

func (r resumingNamespace) List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	return r.r.list(ctx, opts, r.ResourceInterface.List)
}

func (r resumingNamespace) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return r.r.watch(ctx, opts, r.ResourceInterface.Watch)
}

// resumer lists and watches one feed.
type resumer struct {
	inv *Inventory
	set *informerSet
	gvr schema.GroupVersionResource
}

func (r resumer) list(ctx context.Context, opts metav1.ListOptions,
	next func(context.Context, metav1.ListOptions) (*unstructured.UnstructuredList, error)) (*unstructured.UnstructuredList, error) {
	if opts.Continue == "" {
		r.inv.feedListing(r.set, r.gvr)
	}
	for tries := 0; ; tries++ {
		l, err := stripList(r.gvr)(next(ctx, opts))
		if err == nil {
			r.inv.feedPage(r.set, r.gvr, l)
			return l, nil
		}
		wait, again := retryAfter(err, tries)
		if ctx.Err() != nil || !again {
			return l, err
		}
		r.inv.feedBroken(r.set, r.gvr, "listing "+r.gvr.Resource, err)
		if !sleep(ctx, wait) {
			return nil, fmt.Errorf("listing %s: %w", r.gvr.Resource, ctx.Err())
		}
	}
}

func (r resumer) watch(ctx context.Context, opts metav1.ListOptions,
	next func(context.Context, metav1.ListOptions) (watch.Interface, error)) (watch.Interface, error) {
	for tries := 0; ; tries++ {
		w, err := next(ctx, opts)
		switch {
		case err == nil:
			return newWatchedFeed(w, r, r.inv.feedWatching(r.set, r.gvr)), nil
		case ctx.Err() != nil:
			return nil, err
		}
		r.inv.feedBroken(r.set, r.gvr, "watching "+r.gvr.Resource, err)
		wait, again := retryAfter(err, tries)
		if !again {
			return nil, err
		}
		if !sleep(ctx, wait) {
			return nil, fmt.Errorf("watching %s: %w", r.gvr.Resource, ctx.Err())
		}
	}
}

// watchedFeed passes a watch's events on, notes the last one's resource
// version for the feed, and tells the inventory how the watch ended: with an
// error event (410 Gone: the reflector lists again), or at once with nothing.
type watchedFeed struct {
	in      watch.Interface
	out     chan watch.Event
	stop    chan struct{}
	once    sync.Once
	r       resumer
	f       *feedState
	started time.Time
}

func newWatchedFeed(in watch.Interface, r resumer, f *feedState) *watchedFeed {
	w := &watchedFeed{in: in, out: make(chan watch.Event), stop: make(chan struct{}), r: r, f: f, started: time.Now()}
	go w.run()
	return w
}

// ResultChan implements watch.Interface.
func (w *watchedFeed) ResultChan() <-chan watch.Event { return w.out }

// Stop implements watch.Interface.
func (w *watchedFeed) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.in.Stop()
	})
}

func (w *watchedFeed) run() {
	defer close(w.out)
	events := 0
	for {
		select {
		case <-w.stop:
			return
		case e, ok := <-w.in.ResultChan():
			if !ok {
				// client-go's rule for a watch it does not trust ("very short watch").
				w.r.inv.feedWatchEnded(w.r.set, w.r.gvr, events == 0 && time.Since(w.started) < time.Second)
				return
			}
			switch e.Type {
			case watch.Error:
				w.r.inv.feedBroken(w.r.set, w.r.gvr, "the watch of "+w.r.gvr.Resource+" ended", apierrors.FromObject(e.Object))
			case watch.Bookmark:
			default:
				events++
				if m, err := meta.Accessor(e.Object); err == nil {
					w.f.receivedVersion(m.GetResourceVersion())
				}
			}
			select {
			case w.out <- e:
			case <-w.stop:
				return
			}
		}
	}
}
