package kube

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Each resource of an informer set is a feed: its informer's list, then its
// watch. A feed is current while its watch runs. When the watch breaks (the
// API server went away, a watch ended with an error or at once, the
// reflector lists again) the feed is stale until its watch runs again, has
// run for resumeSettle, and what it received since has reached the
// inventory's handler. A watch that starts gets what changed since the
// feed's resource version at once, or is ended at once (410 Gone) when the
// API server no longer has that history, and the reflector then lists
// again, once, from the watch cache (informer_resume.go). The inventory is
// available only while every feed of the live set is current
// (inventory_probe.go).

// resumeSettle is how long a resumed watch must run before its feed is
// current again: long enough for the API server's answer to the resource
// version (the events since, or 410, sent as soon as the watch starts) to
// have arrived.
const resumeSettle = 500 * time.Millisecond

// resumeWithin is how long the live set may stay stale while the API server
// answers before a new set replaces it (inventory_probe.go).
const resumeWithin = 30 * time.Second

// A resumed feed has caught up when its handler has had the newest object
// received and no event has come for quietGap: a backlog comes back to back
// (the watch reads the next event when the reflector has taken the last), a
// live watch's events tens of milliseconds apart. catchUpMax bounds the wait
// (a cluster that changes without pause; an event the handler never gets).
const (
	quietGap   = 50 * time.Millisecond
	catchUpMax = 5 * time.Second
)

// feedState is what the inventory knows of one feed; guarded by Inventory.mu
// but for the counters.
type feedState struct {
	listed     bool      // its first list has been received in full
	listFailed bool      // an attempt at its first list failed (counted once)
	broken     string    // why its objects may not be current; "" while its watch runs
	resumed    time.Time // when its watch ran again after it broke
	watched    time.Time // when its watch last started

	// The resource versions of the newest event the watch received and of
	// the newest object the handler has had: the handler has caught up with
	// the watch when handled reaches received (with a relist, the field
	// relist follows what it changed). lastEvent is when the watch last
	// received an event (unix nanoseconds).
	received, handled atomic.Uint64
	lastEvent         atomic.Int64
	// relist follows the feed's last relist until the handler has had what
	// it changed (informer_relist.go); nil when none is under way.
	relist *relistState
}

// storeMax raises a to v.
func storeMax(a *atomic.Uint64, v uint64) {
	for {
		old := a.Load()
		if v <= old || a.CompareAndSwap(old, v) {
			return
		}
	}
}

// receivedVersion records an event of this resource version, received now.
func (f *feedState) receivedVersion(rv string) {
	storeMax(&f.received, resourceVersion(rv))
	f.lastEvent.Store(time.Now().UnixNano())
}

// resourceVersion is an object's resource version as a number, 0 when it
// is not one (resource versions are opaque; the API server's are etcd
// revisions).
func resourceVersion(rv string) uint64 {
	n, _ := strconv.ParseUint(rv, 10, 64)
	return n
}

// handledVersion records that the handler has had an object of this
// resource version.
func (f *feedState) handledVersion(rv string) { storeMax(&f.handled, resourceVersion(rv)) }

// feed returns the state of a set's feed of gvr.
func (s *informerSet) feed(gvr schema.GroupVersionResource) *feedState {
	if s.feeds == nil {
		s.feeds = map[schema.GroupVersionResource]*feedState{}
	}
	f := s.feeds[gvr]
	if f == nil {
		f = &feedState{}
		s.feeds[gvr] = f
	}
	return f
}

// hasListedLocked reports whether a feed's first list has arrived: the list
// returned (the handler may still be taking it), or the handler has had it
// (client-go's watch-list mode lists without List).
func (s *informerSet) hasListedLocked(gvr schema.GroupVersionResource) bool {
	synced := s.listedBy[gvr]
	return s.feed(gvr).listed || (synced != nil && synced())
}

// staleLocked tells why the set's objects of gvrs may not be current, ""
// when every feed is; a resumed feed that has caught up is current again.
// settling is true when the only stale feeds are resumed ones.
func (s *informerSet) staleLocked(gvrs []schema.GroupVersionResource, now time.Time) (why string, settling bool) {
	var broken, resuming string // the first of each
	for _, gvr := range gvrs {
		f := s.feeds[gvr]
		switch {
		case f == nil || f.broken == "":
		case f.caughtUp(now):
			f.broken, f.resumed, f.relist = "", time.Time{}, nil
		case !f.resumed.IsZero():
			if resuming == "" {
				resuming = fmt.Sprintf("resuming the watch of %s (after: %s)", gvr.Resource, f.broken)
			}
		case broken == "":
			broken = f.broken
		}
	}
	if broken != "" {
		return broken, false
	}
	return resuming, resuming != ""
}

// caughtUp reports whether a resumed feed has run for resumeSettle and its
// handler has had what it received (and what a relist changed), the watch
// quiet for quietGap (or catchUpMax has passed).
func (f *feedState) caughtUp(now time.Time) bool {
	switch {
	case f.resumed.IsZero() || now.Sub(f.resumed) < resumeSettle:
		return false
	case now.Sub(f.resumed) >= catchUpMax:
		return true
	}
	quiet := now.Sub(time.Unix(0, f.lastEvent.Load())) >= quietGap
	return quiet && f.relist.done() && f.handled.Load() >= f.received.Load()
}

// feedWatching records that a feed's watch runs (again), and returns the
// feed for its events to be counted.
func (i *Inventory) feedWatching(s *informerSet, gvr schema.GroupVersionResource) *feedState {
	i.mu.Lock()
	defer i.mu.Unlock()
	f := s.feed(gvr)
	f.watched = time.Now()
	if f.broken != "" && f.resumed.IsZero() {
		f.resumed = f.watched
	}
	return f
}

// feedWatchEnded records that a feed's watch ended without an error event.
// client-go watches again at once; if the watch ended at once with nothing
// (the API server ended it: shutting down, its cache not ready), client-go
// lists again only after a backoff, so the feed is stale. A resumed feed
// not yet current waits for its next watch.
func (i *Inventory) feedWatchEnded(s *informerSet, gvr schema.GroupVersionResource, atOnce bool) {
	i.mu.Lock()
	f := s.feed(gvr)
	if f.broken != "" {
		f.resumed = time.Time{}
	}
	i.mu.Unlock()
	if atOnce {
		i.feedBroken(s, gvr, "the watch of "+gvr.Resource+" ended at once", nil)
	}
}

// feedBroken records that a feed's watch is broken, and why (err, if any,
// is what broke it). Before its first list has arrived nothing of it was
// delivered, so nothing is stale. A live set's broken feed makes the
// inventory unavailable at once.
func (i *Inventory) feedBroken(s *informerSet, gvr schema.GroupVersionResource, reason string, err error) {
	if err != nil {
		reason += ": " + err.Error()
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if s != i.live && s != i.pending {
		return
	}
	f := s.feed(gvr)
	if !s.hasListedLocked(gvr) {
		if !f.listFailed {
			f.listFailed = true
			i.metrics.watchErrors.WithLabelValues(gvr.Resource).Inc()
		}
		i.log.Debug().Str("resource", gvr.Resource).Msg(reason + "; the first list is tried again")
		return
	}
	first := f.broken == "" || !f.resumed.IsZero()
	f.broken, f.resumed = reason, time.Time{}
	if !first {
		return // the same break, retried
	}
	i.metrics.watchErrors.WithLabelValues(gvr.Resource).Inc()
	i.log.Debug().Str("resource", gvr.Resource).Bool("live", s == i.live).Msg(reason)
	if s == i.live {
		i.setStatusLocked(false, reason)
	}
}
