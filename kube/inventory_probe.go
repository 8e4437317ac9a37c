package kube

import (
	"context"
	"fmt"
	"time"
)

// setStatus records whether the inventory can be trusted, logging a change of
// availability.
func (i *Inventory) setStatus(available bool, reason string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.status.Available == available && i.status.Reason == reason {
		return
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
	i.gvrs = gvrs
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
		i.probe(ctx)
		next := i.opts.ProbeInterval
		i.mu.RLock()
		if !i.status.Available && i.live != nil {
			next = min(next, time.Second)
		}
		i.mu.RUnlock()
		timer.Reset(next)
	}
}

// probe asks the API server whether it is ready. The inventory is available
// when the last probe succeeded and the live informers have synced and have
// not failed since: after any failure (a watch error, or the API server
// unreachable) new informers must list and sync first. They are started as
// soon as the API server is ready again.
func (i *Inventory) probe(ctx context.Context) {
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	body, err := i.disc.RESTClient().Get().AbsPath("/readyz").DoRaw(pctx)
	reason := ""
	switch {
	case ctx.Err() != nil:
		return
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
	if reason != "" {
		i.markFailedLocked(reason)
		i.mu.Unlock()
		i.setStatus(false, reason)
		return
	}
	live, pending, now := i.live, i.pending, time.Now()
	switch {
	case live != nil && live.failed == "":
		if now.Sub(live.promoted) > time.Minute {
			i.restartBackoff = 0 // healthy for a while: the next failure restarts at once
		}
	case pending == nil || pending.failed != "":
		if now.Before(i.restartAt) {
			break
		}
		if live != nil {
			i.log.Info().Str("after", live.failed).Msg("the Kubernetes API server answers: new informers list everything again")
		}
		i.startSetLocked(ctx)
	}
	switch {
	case live == nil:
		reason = "informers not synced yet"
	case live.failed != "":
		reason = "informers listing again after a failure (" + live.failed + ")"
	}
	i.mu.Unlock()
	i.setStatus(reason == "", reason)
}
