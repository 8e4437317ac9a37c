package alert

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// DispatcherConfig tunes a Dispatcher; zero fields take their defaults.
type DispatcherConfig struct {
	// ResendInterval is how often firing alerts (and recently resolved ones)
	// are sent again; default 1m. Keep it below Alertmanager's
	// resolve_timeout (default 5m), which resolves alerts not re-sent.
	ResendInterval time.Duration
	// ResolvedFor is how long a resolved alert keeps being sent as resolved;
	// default 5m.
	ResolvedFor time.Duration
	// QueueSize is the number of batches each sink may have waiting; when it
	// is full the oldest batch is dropped (and counted). Default 100.
	QueueSize int
	// RetryMin and RetryMax bound the jittered exponential backoff between
	// attempts to deliver a batch to a sink; defaults 500ms and 30s.
	RetryMin, RetryMax time.Duration
	// Now is the clock, for tests; default time.Now.
	Now func() time.Time
}

func (c DispatcherConfig) withDefaults() (DispatcherConfig, error) {
	c.ResendInterval = cmp.Or(c.ResendInterval, time.Minute)
	c.ResolvedFor = cmp.Or(c.ResolvedFor, 5*time.Minute)
	c.QueueSize = cmp.Or(c.QueueSize, 100)
	c.RetryMin = cmp.Or(c.RetryMin, 500*time.Millisecond)
	c.RetryMax = cmp.Or(c.RetryMax, 30*time.Second)
	if c.Now == nil {
		c.Now = time.Now
	}
	switch {
	case c.ResendInterval < 0 || c.ResolvedFor < 0 || c.RetryMin < 0:
		return c, errors.New("alert dispatcher: intervals must not be negative")
	case c.QueueSize < 0:
		return c, fmt.Errorf("alert dispatcher: queue size %d is negative", c.QueueSize)
	case c.RetryMax < c.RetryMin:
		return c, fmt.Errorf("alert dispatcher: retry maximum %s is below the minimum %s", c.RetryMax, c.RetryMin)
	}
	return c, nil
}

// Dispatcher delivers alerts to sinks. After every validation the caller
// passes the complete set of alerts firing now to Publish: new alerts are
// sent at once, firing ones again every ResendInterval, and ones that
// disappeared are sent resolved (ending when they disappeared) and repeated
// for ResolvedFor. An alert's identity is its label set. Each sink has its
// own queue and retries, so one being down never delays another.
type Dispatcher struct {
	cfg     DispatcherConfig
	log     zerolog.Logger
	metrics *metrics
	queues  []*queue

	mu      sync.Mutex
	state   *state
	running bool
}

// NewDispatcher returns a Dispatcher for the sinks, registering its metrics
// with reg (which may be nil).
func NewDispatcher(cfg DispatcherConfig, sinks []Sink, log zerolog.Logger, reg prometheus.Registerer) (*Dispatcher, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(sinks))
	for i, s := range sinks {
		if s == nil {
			return nil, fmt.Errorf("alert dispatcher: sink %d is nil", i)
		}
		names[i] = s.Name()
	}
	m, err := newMetrics(reg, names)
	if err != nil {
		return nil, err
	}
	d := &Dispatcher{cfg: cfg, log: log, metrics: m, state: newState(cfg.ResolvedFor)}
	for _, s := range sinks {
		d.queues = append(d.queues, &queue{
			sink: s, size: cfg.QueueSize, metrics: m.forSink(s.Name()), now: cfg.Now,
			log:      log.With().Str("sink", s.Name()).Logger(),
			retryMin: cfg.RetryMin, retryMax: cfg.RetryMax,
			current: d.snapshot, wake: make(chan struct{}, 1), healthy: true,
		})
	}
	return d, nil
}

// Publish sets the complete set of alerts firing now. It never blocks on a
// sink: what must be sent at once is queued for every sink.
func (d *Dispatcher) Publish(firing []Alert) {
	d.mu.Lock()
	defer d.mu.Unlock()
	notices := d.state.update(firing, d.cfg.Now())
	n := d.state.firingCount()
	d.metrics.firing.Set(float64(n))
	if len(notices) == 0 {
		return
	}
	d.log.Debug().Int("changed", len(notices)).Int("firing", n).Msg("alerts changed")
	for _, q := range d.queues {
		q.push(notices)
	}
}

// Firing returns the alerts firing now, ordered by label set.
func (d *Dispatcher) Firing() []Alert {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.state.firing()
}

// Run delivers alerts until ctx ends, then returns nil. On shutdown it sends
// nothing more: alerts still firing are left to Alertmanager's
// resolve_timeout rather than being reported resolved.
func (d *Dispatcher) Run(ctx context.Context) error {
	d.mu.Lock()
	if d.running {
		d.mu.Unlock()
		return errors.New("alert dispatcher is already running")
	}
	d.running = true
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.running = false
		d.mu.Unlock()
	}()

	var wg sync.WaitGroup
	for _, q := range d.queues {
		wg.Go(func() { q.run(ctx) })
	}
	t := time.NewTicker(d.cfg.ResendInterval)
	defer t.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-t.C:
			d.resend()
		}
	}
	wg.Wait()
	for _, q := range d.queues {
		if c, ok := q.sink.(interface{ CloseIdleConnections() }); ok {
			c.CloseIdleConnections()
		}
	}
	return nil
}

// resend queues the whole state for every sink.
func (d *Dispatcher) resend() {
	d.mu.Lock()
	defer d.mu.Unlock()
	notices := d.state.snapshot(d.cfg.Now())
	if len(notices) == 0 {
		return
	}
	for _, q := range d.queues {
		q.push(notices)
	}
}

// snapshot is the whole state: what a sink that failed must be sent once it
// is reachable again, so that what it missed while down (or lost in a
// restart) arrives at once rather than at the next resend.
func (d *Dispatcher) snapshot() []Notice {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.state.snapshot(d.cfg.Now())
}
