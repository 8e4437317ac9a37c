package kube

import (
	"context"
	"fmt"
	"time"
)

// setStatusLocked records whether the inventory can be trusted, logging a
// change of availability. What decided the status (the probe, a feed that
// broke) sets it under the same hold of i.mu, so that an older decision
// never overwrites a newer one.
func (i *Inventory) setStatusLocked(available bool, reason string) {
	if i.status.Available == available && i.status.Reason == reason || !available && i.shuttingDown() {
		return // shutting down: the watches end because routewarden stops, the cluster is not away
	}
	if i.status.Available != available {
		i.status.Since = time.Now()
		ev := i.log.Info()
		if !available {
			ev = i.log.Warn()
		}
		ev.Bool("available", available).Str("reason", reason).Msg("cluster inventory")
	}
	i.status.Available, i.status.Reason = available, reason
	i.bumpLocked()
}

// shuttingDown reports whether Run's context ended; under i.mu.
func (i *Inventory) shuttingDown() bool {
	select {
	case <-i.stopping:
		return true
	default:
		return false
	}
}

// Run checks the CRDs, starts the informers and probes the API server until
// ctx ends. The first set of informers is promoted, and the inventory made
// available, by a probe run as soon as it has synced (waiting for the next
// periodic probe held the first verdict back by up to ProbeInterval). Once it
// has been available, it is probed every second while unavailable, and new
// informers that have synced are promoted at once.
func (i *Inventory) Run(ctx context.Context) error {
	gvrs, err := i.resources()
	if err != nil {
		return err
	}
	defer i.stopSets()
	i.mu.Lock()
	i.gvrs, i.stopping = gvrs, ctx.Done()
	i.startSetLocked(ctx)
	i.mu.Unlock()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case s := <-i.synced:
			i.mu.RLock()
			restart := i.live != nil
			i.mu.RUnlock()
			if restart {
				i.promote(s)
			} // else the probe below checks the API server and promotes it
		case <-timer.C:
		}
		settling := i.probe(ctx)
		next := i.opts.ProbeInterval
		i.mu.RLock()
		if !i.status.Available && i.live != nil {
			next = min(next, time.Second)
		}
		i.mu.RUnlock()
		if settling {
			next = min(next, resumeSettle/2)
		}
		timer.Reset(next)
	}
}

// probe asks the API server whether it is ready. The inventory is available
// when the last probe succeeded and the live informers have synced and every
// one of their feeds is current (informer_feed.go): after an outage, once
// each watch has resumed, or its resource been listed again. A live set
// whose feeds have not all resumed within resumeWithin of the API server
// answering is replaced by a new set, which lists everything. settling is
// true when the API server answers and the live set waits only for resumed
// watches to settle: then the next probe is soon.
func (i *Inventory) probe(ctx context.Context) (settling bool) {
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	body, err := i.disc.RESTClient().Get().AbsPath("/readyz").DoRaw(pctx)
	reason := ""
	switch {
	case ctx.Err() != nil:
		return false
	case err != nil:
		reason = fmt.Sprintf("the Kubernetes API server is unreachable: %v", err)
	case string(body) != "ok":
		reason = "the Kubernetes API server is not ready"
	}
	if reason == "" {
		i.mu.RLock()
		p := i.pending
		i.mu.RUnlock()
		if p != nil && p.hasSynced() {
			i.promote(p)
		}
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if reason != "" {
		i.staleFrom = time.Time{} // counted from when the API server answers
		i.setStatusLocked(false, reason)
		return false
	}
	live, now := i.live, time.Now()
	switch {
	case live == nil:
		reason = "informers not synced yet"
		if i.pending == nil && !now.Before(i.restartAt) {
			i.startSetLocked(ctx)
		}
	default:
		reason, settling = live.staleLocked(i.gvrs, now)
		i.replaceStaleLocked(ctx, reason, now)
	}
	i.setStatusLocked(reason == "", reason)
	return settling
}

// replaceStaleLocked starts a new set of informers when the live set has
// been stale (why) for resumeWithin while the API server answered, and
// none is listing yet.
func (i *Inventory) replaceStaleLocked(ctx context.Context, why string, now time.Time) {
	live := i.live
	if why == "" {
		i.staleFrom = time.Time{}
		if now.Sub(live.promoted) > time.Minute {
			i.restartBackoff = 0 // healthy for a while: the next replacement starts at once
		}
		return
	}
	if i.staleFrom.IsZero() {
		i.staleFrom = now
	}
	if now.Sub(i.staleFrom) < resumeWithin || i.pending != nil || now.Before(i.restartAt) {
		return
	}
	i.log.Info().Str("stale", why).Dur("for", now.Sub(i.staleFrom)).
		Msg("the informers did not resume: new informers list everything again")
	i.startSetLocked(ctx)
}
