package kube

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/routewarden/routewarden/validator"
)

// informerSet is one generation of informers, one per watched resource, with
// the objects they have delivered.
//
// After an outage client-go's reflectors list again only when their backoff
// (up to 30 s, jittered to 60 s) has run out; until then their cache no
// longer changes. So the inventory never trusts a set once any of its watches
// has failed or the API server has been unreachable: when the API is back it
// starts a new set, which lists at once, and swaps it in (promote) when all its
// informers have synced. Only then is the inventory available again.
type informerSet struct {
	cancel context.CancelFunc
	synced []cache.InformerSynced
	// listed tells, by resource, whether its handler has had the first list.
	listedBy map[schema.GroupVersionResource]cache.InformerSynced
	objects  map[schema.GroupVersionResource]map[string]*decodedObject
	started  time.Time
	listed   time.Time // when every handler had its first list; guarded by Inventory.mu
	promoted time.Time
	failed   string // why the set can no longer be trusted; guarded by Inventory.mu
}

// startSetLocked starts a new set of informers as the pending one, replacing
// (and stopping) any pending set that has not synced. When it has synced, it
// is sent on i.synced, for Run to promote it at once if it replaces a live set.
func (i *Inventory) startSetLocked(ctx context.Context) {
	if old := i.pending; old != nil {
		old.cancel()
	}
	sctx, cancel := context.WithCancel(ctx)
	s := &informerSet{cancel: cancel, started: time.Now(), listedBy: map[schema.GroupVersionResource]cache.InformerSynced{},
		objects: map[schema.GroupVersionResource]map[string]*decodedObject{}}
	i.pending = s
	i.restartAt = s.started.Add(i.restartBackoff)
	i.restartBackoff = min(max(2*i.restartBackoff, time.Second), time.Minute)
	i.metrics.informerStarts.Inc()

	lists := strippedLists{i.dyn} // each list page stripped as it comes (transform.go)
	all := dynamicinformer.NewDynamicSharedInformerFactory(lists, 0)
	ns := i.opts.Cluster.CiliumNamespace
	if ns == "" {
		ns = "kube-system"
	}
	// The ConfigMap informer only sees cilium-config in Cilium's namespace
	// (RBAC restricts it to that name).
	cfg := dynamicinformer.NewFilteredDynamicSharedInformerFactory(lists, 0, ns,
		func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=cilium-config" })
	for _, gvr := range i.gvrs {
		f := all
		if gvr == gvrConfigMaps {
			f = cfg
		}
		inf := f.ForResource(gvr).Informer()
		// Before Start: the store keeps each object's decoding, not the object (transform.go).
		_ = inf.SetTransform(transformFor(gvr))
		_ = inf.SetWatchErrorHandler(func(_ *cache.Reflector, err error) { i.watchFailed(s, gvr, err) })
		reg, _ := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { i.upsert(s, gvr, obj) },
			UpdateFunc: func(_, obj any) { i.upsert(s, gvr, obj) },
			DeleteFunc: func(obj any) { i.remove(s, gvr, obj) },
		})
		// The registration has synced once the handler has received every
		// object of the first list, not only the informer's store.
		s.synced = append(s.synced, reg.HasSynced)
		s.listedBy[gvr] = reg.HasSynced
	}
	all.Start(sctx.Done())
	cfg.Start(sctx.Done())

	i.sets.Add(2)
	go func() { // Stop: once the set is cancelled, wait for its goroutines.
		defer i.sets.Done()
		<-sctx.Done()
		all.Shutdown()
		cfg.Shutdown()
	}()
	go func() { // Report the set synced.
		defer i.sets.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for !s.hasSynced() {
			select {
			case <-sctx.Done():
				return
			case <-tick.C:
			}
		}
		i.mu.Lock()
		s.listed = time.Now()
		i.mu.Unlock()
		select {
		case i.synced <- s:
		case <-sctx.Done():
		}
	}()
}

// hasSynced reports whether every handler has received its informer's first list.
func (s *informerSet) hasSynced() bool {
	return !slices.ContainsFunc(s.synced, func(f cache.InformerSynced) bool { return !f() })
}

// watchFailed is a set's watch error handler: the set is no longer trusted.
// Errors of a set that was replaced (its lists cancelled) are not counted.
func (i *Inventory) watchFailed(s *informerSet, gvr schema.GroupVersionResource, err error) {
	reason := fmt.Sprintf("watching %s failed: %v", gvr.Resource, err)
	i.mu.Lock()
	current := s == i.live || s == i.pending
	if s == i.pending && !s.listedBy[gvr]() {
		// Its first list failed (an API server that just restarted answers
		// 429 until its watch cache is ready): nothing of it was delivered,
		// so nothing is stale, and its reflector lists again. Replacing the
		// whole set instead would list every resource again each time.
		i.mu.Unlock()
		i.metrics.watchErrors.WithLabelValues(gvr.Resource).Inc()
		i.log.Debug().Err(err).Str("resource", gvr.Resource).Msg("first list failed; client-go lists again")
		return
	}
	if current && s.failed == "" {
		s.failed = reason
	}
	live := s == i.live
	if live {
		s.cancel() // its objects stay, frozen; its reflectors would only list again beside the next set's
	}
	i.mu.Unlock()
	if !current {
		return
	}
	i.metrics.watchErrors.WithLabelValues(gvr.Resource).Inc()
	i.log.Debug().Err(err).Str("resource", gvr.Resource).Bool("live", live).Msg("watch failed")
	if live {
		i.setStatus(false, reason)
	}
}

// markFailedLocked distrusts the current sets (the API server is unreachable:
// their watches are broken, and client-go would relist only after a backoff)
// and stops the live one's informers.
func (i *Inventory) markFailedLocked(reason string) {
	for _, s := range []*informerSet{i.live, i.pending} {
		if s != nil && s.failed == "" {
			s.failed = reason
		}
	}
	if i.live != nil {
		// Its objects stay, frozen, until a new set is promoted; its
		// reflectors would only retry and list again beside the new set's
		// (a second list of everything per outage).
		i.live.cancel()
	}
}

// promote makes a synced pending set the live one and stops the previous
// one. Nodes the previous set knew and the new one does not were deleted while
// nobody watched: they get tombstones, as a relist would give them.
func (i *Inventory) promote(s *informerSet) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if s != i.pending || s.failed != "" {
		return // replaced meanwhile, or failed: the probe starts another
	}
	old := i.live
	if old != nil {
		for name, u := range old.objects[gvrNodes] {
			if _, ok := s.objects[gvrNodes][name]; !ok {
				i.tombstones = append(i.tombstones, i.tombstoneLocked(u)) // reads old's CiliumNodes
			}
		}
		old.cancel()
	}
	i.tombstones = slices.DeleteFunc(i.tombstones, func(d validator.DeletedNode) bool {
		_, back := s.objects[gvrNodes][d.Name]
		return back
	})
	s.promoted = time.Now()
	i.live, i.pending = s, nil
	i.objects = s.objects
	i.status.Synced = true
	i.releaseAfterBuildLocked()
	ev := i.log.Debug()
	if old == nil {
		ev = i.log.Info() // once, at start: how long the first list took (BENCHMARKS.md reads it)
	}
	listed := s.listed
	if listed.IsZero() {
		listed = s.promoted
	}
	ev.Float64("listed_in_seconds", listed.Sub(s.started).Seconds()).Bool("restart", old != nil).
		Msg("informers synced")
	i.bumpLocked()
}

// stopSets stops every set and waits for their goroutines.
func (i *Inventory) stopSets() {
	i.mu.Lock()
	for _, s := range []*informerSet{i.live, i.pending} {
		if s != nil {
			s.cancel()
		}
	}
	i.mu.Unlock()
	i.sets.Wait()
}

// After a set of informers is promoted, what its lists needed is garbage:
// the API server's list bodies, the unstructured objects and the YAML trees
// the transform decoded them from (and, after an outage, the previous set's
// objects). The runtime keeps the heap it grew to for them: its next
// collection is paced on the heap live at the last one, taken while the
// lists were being read, and with informers only trickling in changes that
// collection does not come for a long time, so the process keeps the
// start-up's memory (hack/bench/notes.md, "Cluster scale": at 1,000 nodes,
// steady RSS 215 MB without this, 125 MB with it, the bare-informer floor
// 144 MB). So after the first translation of a promoted set, once, the
// inventory collects and returns the free memory to the OS
// (debug.FreeOSMemory: one full collection, in its own goroutine, beside the
// validation).

// releaseAfterBuildLocked schedules the release for after the next
// successful translation.
func (i *Inventory) releaseAfterBuildLocked() { i.releaseDue = true }

// releaseIfDueLocked starts the release when one is due.
func (i *Inventory) releaseIfDueLocked() {
	if !i.releaseDue {
		return
	}
	i.releaseDue = false
	i.release()
}

// freeOSMemory is the release (a test's counter in tests): in its own
// goroutine, as the full collection takes a while at scale.
func freeOSMemory() { go debug.FreeOSMemory() }
