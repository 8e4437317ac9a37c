package kube

import (
	"context"
	"errors"
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
// One set serves for the life of the process as a rule: after an outage its
// watches resume from where they were (informer_resume.go, informer_feed.go),
// and a resource whose history the API server no longer has is listed again,
// alone, by its reflector. A new set is started only when the live one's
// feeds have not resumed within resumeWithin of the API server answering
// again (inventory_probe.go): it lists everything, and is swapped in
// (promote) when all its informers have synced.
type informerSet struct {
	cancel context.CancelFunc
	synced []cache.InformerSynced
	// listed tells, by resource, whether its handler has had the first list.
	listedBy map[schema.GroupVersionResource]cache.InformerSynced
	objects  map[schema.GroupVersionResource]map[string]*decodedObject
	started  time.Time
	listed   time.Time // when every handler had its first list; guarded by Inventory.mu
	promoted time.Time
	feeds    map[schema.GroupVersionResource]*feedState // guarded by Inventory.mu (informer_feed.go)
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

	// Each list page stripped as it comes; lists and watches that failed
	// while the API server was away tried again at once (informer_resume.go).
	client := resumingClient{i.dyn, i, s}
	all := dynamicinformer.NewDynamicSharedInformerFactory(client, 0)
	ns := i.opts.Cluster.CiliumNamespace
	if ns == "" {
		ns = "kube-system"
	}
	// The ConfigMap informer only sees cilium-config in Cilium's namespace
	// (RBAC restricts it to that name).
	cfg := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, ns,
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

// watchFailed is a set's watch error handler: client-go's reflector failed
// to list or watch a resource and will list it again after a backoff. The
// feed is stale until its watch runs again. An error of a set being stopped
// is not one.
func (i *Inventory) watchFailed(s *informerSet, gvr schema.GroupVersionResource, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	i.feedBroken(s, gvr, "listing and watching "+gvr.Resource+" failed", err)
}

// promote makes a synced pending set the live one and stops the previous
// one. Nodes the previous set knew and the new one does not were deleted while
// nobody watched: they get tombstones, as a relist would give them.
func (i *Inventory) promote(s *informerSet) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if s != i.pending {
		return // replaced meanwhile
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
	i.live, i.pending, i.staleFrom = s, nil, time.Time{}
	i.objects = s.objects
	i.status.Synced = true
	if why, _ := s.staleLocked(i.gvrs, s.promoted); why != "" {
		i.setStatusLocked(false, why) // a feed broke since it listed; the probe decides when it is current
	}
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
