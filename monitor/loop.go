package monitor

import (
	"context"
	"sync"
	"time"

	"github.com/routewarden/routewarden/validator"
	"github.com/routewarden/routewarden/validator/convergence"
)

// Options tune the loop.
type Options struct {
	Validator validator.Options
	// HoldDown is how long a finding must persist before it fires (0 allowed).
	HoldDown time.Duration
	// Debounce coalesces bursts of events into one validation.
	Debounce time.Duration
	// WarmupTimeout ends warm-up even if some expected peer never sent End-of-RIB.
	WarmupTimeout time.Duration
	// Resync re-validates at least this often (tombstone ages, safety).
	Resync time.Duration
	// DeferGC holds the Go garbage collector back while a large table is
	// validated (gc.go). It changes process-wide settings for the
	// duration: for a process whose main work is this loop (routewarden run).
	DeferGC bool
	// Convergence tunes the timing of route changes (convergence.go).
	Convergence ConvergenceOptions
	Now         func() time.Time
}

// State is the loop's view after a validation.
type State struct {
	At        time.Time                 `json:"at"`
	Findings  []Tracked                 `json:"findings"`
	WarmingUp bool                      `json:"warmingUp"`
	Frozen    bool                      `json:"frozen"`
	Inventory validator.InventoryStatus `json:"inventory"`
	Summary   validator.Summary         `json:"summary"`
	Duration  time.Duration             `json:"duration"`
	Err       string                    `json:"error,omitempty"`
	// Converged are the route changes this validation found completed
	// (convergence.go); PendingChanges counts those still waiting.
	Converged      []convergence.Completed `json:"-"`
	PendingChanges int                     `json:"pendingChanges"`
	// While warming up: when the warm-up timeout ends it (zero until the
	// inventory synced) and the peers whose End-of-RIB would end it sooner.
	WarmupEnds time.Time     `json:"warmupEnds,omitempty"`
	Awaiting   []AwaitedPeer `json:"awaiting,omitempty"`
}

// Loop re-validates on every change.
type Loop struct {
	routes    RouteSource
	cluster   ClusterSource
	warm      Warmup
	observers []Observer
	opts      Options
	findings  *lifecycle
	engines   engineCache
	conv      *converger
	started   time.Time
	warmEnded bool          // warm-up ended from the inventory (warmup.go); only runOnce's goroutine
	awaiting  []AwaitedPeer // whom warm-up waits for, as warmedUp last found; only runOnce's goroutine

	mu      sync.RWMutex
	optsGen uint64 // counts SetOptions calls
	state   State
	poke    chan struct{}
}

// New builds a loop; Run runs it.
func New(routes RouteSource, cluster ClusterSource, warm Warmup, opts Options, observers ...Observer) *Loop {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Debounce == 0 {
		opts.Debounce = 20 * time.Millisecond
	}
	if opts.WarmupTimeout == 0 {
		opts.WarmupTimeout = 2 * time.Minute
	}
	if opts.Resync == 0 {
		opts.Resync = 30 * time.Second
	}
	return &Loop{routes: routes, cluster: cluster, warm: warm, observers: observers, opts: opts,
		findings: newLifecycle(opts.HoldDown), state: State{WarmingUp: true}, poke: make(chan struct{}, 1),
		conv: newConverger(opts.Convergence)}
}

// State returns the state after the last validation.
func (l *Loop) State() State {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.state
}

// Run validates until ctx ends.
func (l *Loop) Run(ctx context.Context) error {
	l.started = l.opts.Now()
	timer := time.NewTimer(0)
	defer timer.Stop()
	pending := true
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-l.routes.Changed():
		case <-l.cluster.Changed():
		case <-l.poke:
		case <-timer.C:
			pending = false
			next := l.runOnce()
			timer.Reset(next)
			continue
		}
		if !pending {
			pending = true
			timer.Reset(l.opts.Debounce)
		}
	}
}

// SetOptions replaces the validator options and the hold-down (a config
// reload) and re-validates.
func (l *Loop) SetOptions(v validator.Options, holdDown time.Duration) {
	l.mu.Lock()
	l.opts.Validator, l.opts.HoldDown = v, holdDown
	l.optsGen++
	l.mu.Unlock()
	select {
	case l.poke <- struct{}{}:
	default:
	}
}

// runOnce validates and returns how long until the next validation is due.
func (l *Loop) runOnce() time.Duration {
	now := l.opts.Now()
	inv := l.cluster.InventoryStatus()
	warmingUp := !inv.Synced || (l.warm != nil && now.Sub(l.started) < l.opts.WarmupTimeout && !l.warmedUp(now))
	st := State{At: now, Inventory: inv, WarmingUp: warmingUp}
	if warmingUp && inv.Synced {
		st.WarmupEnds, st.Awaiting = l.started.Add(l.opts.WarmupTimeout), l.awaiting
	}
	var transitions []Transition
	switch {
	case !inv.Synced:
		// Nothing is known yet; no finding may be invented from an empty cache.
	case !inv.Available:
		// The cache is stale: keep what was known, fire and resolve nothing.
		st.Frozen = true
		st.Summary = l.State().Summary
		l.forgetConvergence()
	case warmingUp && !l.findings.firing():
		// Nothing can fire before warm-up ends, and the table is still
		// arriving: validating it would only find every allocated CIDR
		// missing (a finding per CIDR, the most expensive validation of the
		// run), and even reading the cluster and copying the routes costs
		// at every wake-up. So the first validation, and the hold-down of
		// every finding, starts when warm-up ends.
	default:
		cluster, version, err := l.cluster.Cluster(now)
		if err != nil {
			st.Err = err.Error()
			st.Frozen = true
			break
		}
		l.mu.RLock()
		opts, gen := l.opts.Validator, l.optsGen
		l.findings.holdDown = l.opts.HoldDown
		l.mu.RUnlock()
		opts.Now = now
		start := time.Now()
		in := judged{cluster: cluster, version: version}
		if src, ok := l.routes.(PolicySource); ok {
			in.policy, in.policyVersion = src.Policy()
		}
		res := l.validate(in, opts)
		st.Duration = time.Since(start)
		st.Summary = res.Summary
		var slow []validator.Finding
		st.Converged, slow = l.converge(cluster, version, opts, gen, now)
		st.PendingChanges = l.conv.pending()
		transitions = l.findings.update(withConvergence(res.Findings, slow), now, !warmingUp)
	}
	st.Findings = l.findings.all()
	l.mu.Lock()
	l.state = st
	l.mu.Unlock()
	for _, o := range l.observers {
		o.Observe(st, transitions)
	}
	next := l.opts.Resync
	if d := l.findings.nextDeadline(); !d.IsZero() {
		next = min(next, max(d.Sub(now), time.Millisecond))
	}
	if d := l.conv.nextDeadline(now); d > 0 {
		next = min(next, d)
	}
	if warmingUp && inv.Synced {
		next = min(next, time.Second)
	}
	if !inv.Synced || !inv.Available {
		next = min(next, time.Second)
	}
	return next
}

// validate validates the current routes through the engine cache.
func (l *Loop) validate(in judged, opts validator.Options) validator.Result {
	fresh, ok := l.routes.(FreshRouteSource)
	if !ok {
		routes, _ := l.routes.Routes()
		return l.engines.validate(in, routes, opts, false)
	}
	if res, ok := l.engines.unchanged(in, fresh.Version(), opts); ok {
		return res
	}
	if src, ok := l.routes.(ChangeSource); ok {
		if res, ok := l.engines.catchUp(in, opts, src); ok {
			return res
		}
	}
	var res validator.Result
	run := func() {
		routes, rv := fresh.FreshRoutes()
		res = l.engines.validate(in, routes, opts, true)
		l.engines.routesVersion, l.engines.routesKnown = rv, true
	}
	if n := fresh.Len(); l.opts.DeferGC && n >= deferGCMin {
		withGCDeferred(uint64(n)*gcHeadroomPerRoute, uint64(n)*gcLiveRoomPerRoute, run)
	} else {
		run()
	}
	return res
}
