package kube

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/routewarden/routewarden/internal/testprom"
)

// TestFeedStates drives the feeds of a live informer set through an outage
// by hand: a feed is stale from the moment its watch breaks (it lists again,
// its watch ends with an error or at once with nothing) until its watch has
// run again for resumeSettle, the handler has had the newest object it
// received and every object a relist changed or found gone, and the watch is
// quiet (or catchUpMax passed); a break before the first list, or of a set that is
// neither live nor pending, is nothing.
func TestFeedStates(t *testing.T) {
	inv := offlineInventory(t, InventoryOptions{})
	live := testNodeSet()
	inv.pending = live
	inv.promote(live)
	nodes, cms := gvrNodes, gvrConfigMaps
	gvrs := []schema.GroupVersionResource{nodes, cms}
	refused := errors.New("dial tcp 127.0.0.1:6443: connect: connection refused")
	gone := apierrors.NewResourceExpired("too old resource version: 233 (235)")
	var resumedAt time.Time
	resume := func(gvr schema.GroupVersionResource) func() {
		return func() { inv.feedWatching(live, gvr); resumedAt = time.Now() }
	}
	for _, tc := range []struct {
		name   string
		do     func()
		after  time.Duration // after the last resume
		stale  string        // part of the reason, "" for current
		errors float64       // routewarden_inventory_watch_errors_total so far
	}{
		{name: "a break before the first list", do: func() { inv.feedBroken(live, nodes, "listing nodes", refused) }, errors: 1},
		{name: "the first list failing again", do: func() { inv.feedBroken(live, nodes, "listing nodes", refused) }, errors: 1},
		{name: "both listed", do: func() {
			inv.feedPage(live, nodes, list(nodeAt("node1", "10.0.0.11", "6"), nodeAt("node2", "10.0.0.12", "5"),
				nodeAt("node3", "10.0.0.13", "4")))
			inv.feedPage(live, cms, list())
			for _, n := range []*unstructured.Unstructured{nodeAt("node1", "10.0.0.11", "6"),
				nodeAt("node2", "10.0.0.12", "5"), nodeAt("node3", "10.0.0.13", "4")} {
				inv.upsert(live, nodes, n) // the handler has the first list
			}
		}, errors: 1},
		{name: "the API server goes away", do: func() { inv.feedBroken(live, cms, "watching configmaps", refused) },
			stale: "watching configmaps: dial tcp", errors: 2},
		{name: "the same break, retried", do: func() { inv.feedBroken(live, cms, "watching configmaps", refused) },
			stale: "watching configmaps", errors: 2},
		{name: "its watch runs again", do: resume(cms), stale: "resuming the watch of configmaps (after: watching", errors: 2},
		{name: "and has run for resumeSettle", after: resumeSettle, errors: 2},
		{name: "a watch that ends with 410", do: func() {
			resume(nodes)() // not broken: a watch like any other
			inv.feedBroken(live, nodes, "the watch of nodes ended", gone)
		}, after: resumeSettle, stale: "too old resource version", errors: 3},
		{name: "its relist: node1 unchanged, node2 changed, node3 gone", do: func() {
			inv.feedListing(live, nodes)
			inv.feedPage(live, nodes, list(nodeAt("node1", "10.0.0.11", "6"), nodeAt("node2", "10.0.0.12", "7")))
		}, stale: "listing nodes again", errors: 3}, // the same break
		{name: "watching after the relist, nothing handled yet", do: resume(nodes), after: resumeSettle,
			stale: "resuming the watch of nodes", errors: 3},
		{name: "the handler has node2, the newest", do: func() { inv.upsert(live, nodes, nodeAt("node2", "10.0.0.12", "7")) },
			after: resumeSettle, stale: "resuming the watch of nodes", errors: 3},
		{name: "and node3's deletion (node1, unchanged, never comes)",
			do: func() { inv.remove(live, nodes, nodeAt("node3", "10.0.0.13", "4")) }, after: resumeSettle, errors: 3},
		{name: "a resumed watch that ends with nothing", do: func() {
			inv.feedBroken(live, cms, "watching configmaps", refused)
			resume(cms)()
			inv.feedWatchEnded(live, cms, false)
		}, after: resumeSettle, stale: "watching configmaps: dial tcp", errors: 4},
		{name: "its next watch", do: resume(cms), after: resumeSettle, errors: 4},
		{name: "a backlog: handled, but the watch not quiet", do: func() {
			inv.feedBroken(live, cms, "watching configmaps", refused)
			resume(cms)()
			f := live.feed(cms)
			f.receivedVersion("9")
			f.handledVersion("9")
			f.lastEvent.Store(resumedAt.Add(resumeSettle).UnixNano())
		}, after: resumeSettle, stale: "resuming the watch of configmaps", errors: 5},
		{name: "quiet for quietGap", after: resumeSettle + quietGap, errors: 5},
		{name: "a watch that ends at once with nothing", do: func() { inv.feedWatchEnded(live, nodes, true) },
			stale: "the watch of nodes ended at once", errors: 6},
		{name: "received, never handled", do: func() { resume(nodes)(); live.feed(nodes).received.Store(10) },
			after: resumeSettle, stale: "resuming the watch of nodes", errors: 6},
		{name: "for catchUpMax", after: catchUpMax, errors: 6},
		{name: "a stopped set's break", do: func() { inv.feedBroken(testNodeSet(), nodes, "watching nodes", refused) },
			after: catchUpMax, errors: 6},
	} {
		if tc.do != nil {
			tc.do()
		}
		inv.mu.Lock()
		got, settling := live.staleLocked(gvrs, resumedAt.Add(tc.after))
		inv.mu.Unlock()
		if (got == "") != (tc.stale == "") || !strings.Contains(got, tc.stale) {
			t.Errorf("%s: stale %q, want %q", tc.name, got, tc.stale)
		}
		if want := strings.HasPrefix(tc.stale, "resuming"); settling != want {
			t.Errorf("%s: settling %v, want %v", tc.name, settling, want)
		}
		if n := testprom.Sum(t, inv.metrics.watchErrors); n != tc.errors {
			t.Errorf("%s: %.0f watch errors counted, want %.0f", tc.name, n, tc.errors)
		}
	}
	if st := inv.Status(); st.Available || !strings.Contains(st.Reason, "nodes ended at once") {
		t.Errorf("status %+v: a live set's broken feed makes the inventory unavailable", st)
	}
}

// TestPromoteBrokenFeed: a set promoted with a feed that broke after its
// first list makes the inventory unavailable at once, not at the next probe.
func TestPromoteBrokenFeed(t *testing.T) {
	inv := offlineInventory(t, InventoryOptions{})
	inv.gvrs = []schema.GroupVersionResource{gvrNodes}
	old := testNodeSet()
	inv.pending = old
	inv.promote(old)
	inv.mu.Lock()
	inv.setStatusLocked(true, "")
	inv.mu.Unlock()
	fresh := testNodeSet()
	inv.pending = fresh
	inv.feedPage(fresh, gvrNodes, list())
	inv.feedBroken(fresh, gvrNodes, "watching nodes", errors.New("connection refused"))
	inv.promote(fresh)
	if st := inv.Status(); st.Available || !strings.Contains(st.Reason, "watching nodes") {
		t.Errorf("status %+v after promoting a set with a broken feed", st)
	}
}

// TestStaleSetReplaced: a live set that stays stale for resumeWithin while
// the API server answers is replaced by new informers, once; the wait starts
// again after the API server was unreachable.
func TestStaleSetReplaced(t *testing.T) {
	inv := offlineInventory(t, InventoryOptions{})
	defer inv.stopSets()
	live := testNodeSet()
	inv.pending = live
	inv.promote(live)
	ctx := context.Background()
	start := time.Now()
	starts := func() float64 { return testprom.Sum(t, inv.metrics.informerStarts) }
	inv.mu.Lock()
	defer inv.mu.Unlock()
	inv.gvrs = []schema.GroupVersionResource{gvrNodes}
	inv.replaceStaleLocked(ctx, "the watch of nodes is broken", start)
	inv.replaceStaleLocked(ctx, "the watch of nodes is broken", start.Add(resumeWithin-time.Second))
	if starts() != 0 {
		t.Fatal("replaced before resumeWithin")
	}
	inv.staleFrom = time.Time{} // the probe failed meanwhile
	inv.replaceStaleLocked(ctx, "the watch of nodes is broken", start.Add(resumeWithin))
	if starts() != 0 {
		t.Fatal("the wait did not start again after the API server was unreachable")
	}
	inv.replaceStaleLocked(ctx, "the watch of nodes is broken", start.Add(2*resumeWithin))
	inv.replaceStaleLocked(ctx, "the watch of nodes is broken", start.Add(3*resumeWithin))
	if starts() != 1 || inv.pending == nil {
		t.Fatalf("%.0f sets started, want 1 while it lists", starts())
	}
}

// TestWatchedFeedEnds: events are counted for the feed; an error event
// breaks the feed and is passed on; a watch that ends at once with nothing
// breaks it too; Stop ends the watch and its goroutine even with nobody
// reading.
func TestWatchedFeedEnds(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	inv := offlineInventory(t, InventoryOptions{})
	live := testNodeSet()
	inv.pending = live
	inv.promote(live)
	inv.feedPage(live, gvrNodes, list())
	r := resumer{inv, live, gvrNodes}

	in := watch.NewFakeWithChanSize(3, false)
	w := newWatchedFeed(in, r, inv.feedWatching(live, gvrNodes))
	in.Add(nodeAt("node1", "10.0.0.11", "5"))
	status := apierrors.NewResourceExpired("too old resource version: 1 (2)").ErrStatus
	in.Error(&status)
	for _, want := range []watch.EventType{watch.Added, watch.Error} {
		if e := <-w.ResultChan(); e.Type != want {
			t.Fatalf("got %v, want %v", e.Type, want)
		}
	}
	if st := inv.Status(); st.Available || !strings.Contains(st.Reason, "too old resource version") {
		t.Errorf("status %+v after a 410", st)
	}
	if n := live.feed(gvrNodes).received.Load(); n != 5 {
		t.Errorf("last event received at resource version %d, want 5 (the error's is none)", n)
	}
	in.Add(testNode("node2", "10.0.0.12")) // nobody reads it
	time.Sleep(10 * time.Millisecond)
	w.Stop()
	w.Stop()

	inv.feedWatching(live, gvrNodes)
	inv.mu.Lock()
	live.staleLocked([]schema.GroupVersionResource{gvrNodes}, time.Now().Add(catchUpMax)) // current again
	inv.mu.Unlock()
	in = watch.NewFake()
	w = newWatchedFeed(in, r, inv.feedWatching(live, gvrNodes))
	in.Stop() // the API server ends it at once
	for range w.ResultChan() {
	}
	inv.mu.Lock()
	why, _ := live.staleLocked([]schema.GroupVersionResource{gvrNodes}, time.Now().Add(catchUpMax))
	inv.mu.Unlock()
	if !strings.Contains(why, "ended at once") {
		t.Errorf("stale %q after a watch that ended at once", why)
	}
}

// list is a whole list (the last page) of objs.
func list(objs ...*unstructured.Unstructured) *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	for _, o := range objs {
		l.Items = append(l.Items, *o)
	}
	return l
}

// nodeAt is testNode at a resource version.
func nodeAt(name, ip, rv string) *unstructured.Unstructured {
	n := testNode(name, ip)
	n.SetResourceVersion(rv)
	return n
}
