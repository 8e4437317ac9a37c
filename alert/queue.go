package alert

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/internal/promreg"
)

// backoff is how long to wait before retry number attempt (from 0): a ceiling
// doubling from lo up to hi, and a wait drawn between half the ceiling and
// the ceiling but never below lo, so that routewarden instances recovering
// together do not retry in lockstep.
func backoff(attempt int, lo, hi time.Duration) time.Duration {
	d := lo
	for i := 0; i < attempt && d < hi; i++ {
		d *= 2
	}
	d = min(d, hi)
	return max(lo, d/2+rand.N(d/2+1))
}

// queue is one sink's bounded queue of batches and the loop delivering them.
type queue struct {
	sink    Sink
	size    int
	metrics sinkMetrics
	log     zerolog.Logger
	now     func() time.Time
	// retryMin and retryMax bound the backoff between attempts.
	retryMin, retryMax time.Duration
	// current returns the Dispatcher's whole state (what fires and what
	// resolved recently); coalesce lays it over a stale backlog.
	current func() []Notice

	mu      sync.Mutex
	batches [][]Notice
	wake    chan struct{}
	healthy bool
}

// push appends a batch without blocking, dropping the oldest batch when the
// queue is full.
func (q *queue) push(batch []Notice) {
	q.mu.Lock()
	if len(q.batches) >= q.size {
		q.batches[0] = nil
		q.batches = q.batches[1:]
		q.metrics.dropped.Inc()
		q.metrics.queueLength.Dec()
		q.log.Warn().Int("queue_size", q.size).Msg("alert queue full: dropped the oldest batch")
	}
	q.batches = append(q.batches, batch)
	q.metrics.queueLength.Inc()
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pop takes the oldest batch, waiting for one until ctx ends.
func (q *queue) pop(ctx context.Context) ([]Notice, bool) {
	for {
		q.mu.Lock()
		if len(q.batches) > 0 {
			b := q.batches[0]
			q.batches[0] = nil
			q.batches = q.batches[1:]
			q.metrics.queueLength.Dec()
			q.mu.Unlock()
			return b, true
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, false
		case <-q.wake:
		}
	}
}

// run delivers batches in order until ctx ends.
func (q *queue) run(ctx context.Context) {
	for {
		batch, ok := q.pop(ctx)
		if !ok {
			return
		}
		q.deliver(ctx, batch)
	}
}

// deliver sends one batch, retrying transient failures with backoff until it
// succeeds, fails permanently or ctx ends. While the sink is failing, every
// attempt first coalesces the batch with the backlog and the current state,
// so that a sink coming back gets the truth of now in one batch instead of a
// replay of changes that are over (an alert that fired and resolved during
// the outage would otherwise page once more).
func (q *queue) deliver(ctx context.Context, batch []Notice) {
	for attempt := 0; ; attempt++ {
		q.mu.Lock()
		failing := !q.healthy
		q.mu.Unlock()
		if failing {
			if batch = q.coalesce(batch); len(batch) == 0 {
				return // Nothing left to tell; the sink stays marked failing.
			}
		}
		err := q.sink.Send(ctx, batch)
		if ctx.Err() != nil {
			return // Shutting down: neither a success nor a failure of the sink.
		}
		if err == nil {
			q.metrics.success.Inc()
			q.metrics.lastSuccess().Set(float64(q.now().UnixNano()) / 1e9)
			q.mu.Lock()
			wasHealthy := q.healthy
			q.healthy = true
			q.mu.Unlock()
			if !wasHealthy {
				q.log.Info().Int("alerts", len(batch)).Msg("alerts delivered again")
			}
			return
		}
		q.metrics.failure.Inc()
		if !retryable(err) {
			q.log.Error().Err(err).Int("alerts", len(batch)).Msg("alert destination rejected a batch; not retrying it")
			return
		}
		q.mu.Lock()
		q.healthy = false
		q.mu.Unlock()
		wait := backoff(attempt, q.retryMin, q.retryMax)
		q.log.Warn().Err(err).Int("attempt", attempt+1).Int("alerts", len(batch)).Dur("retry_in", wait).
			Msg("delivering alerts failed")
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// coalesce merges batch and every batch queued behind it into one batch
// holding the newest notice of each alert, with the current state on top. A
// firing notice of an alert the state no longer has (it resolved, and its
// resolution was dropped from a full queue) is left out rather than sent
// firing again; resolutions of alerts already forgotten are kept.
func (q *queue) coalesce(batch []Notice) []Notice {
	q.mu.Lock()
	backlog := q.batches
	q.batches = nil
	q.metrics.queueLength.Sub(float64(len(backlog)))
	q.mu.Unlock()
	// The state is read after the backlog is taken: it is at least as new as
	// anything in it, and whatever is queued from now on is newer still.
	var current []Notice
	if q.current != nil {
		current = q.current()
	}
	latest := make(map[string]Notice, len(batch)+len(current))
	for _, b := range append([][]Notice{batch}, backlog...) {
		for _, n := range b {
			latest[n.Fingerprint] = n
		}
	}
	known := make(map[string]bool, len(current))
	for _, n := range current {
		latest[n.Fingerprint], known[n.Fingerprint] = n, true
	}
	out := make([]Notice, 0, len(latest))
	for fp, n := range latest {
		if known[fp] || n.Resolved() {
			out = append(out, n)
		}
	}
	sortNotices(out)
	return out
}

// metrics are the Dispatcher's Prometheus metrics. Every series carrying a
// sink label is keyed by the sink's host:port, never by credentials.
type metrics struct {
	deliveries  *prometheus.CounterVec
	dropped     *prometheus.CounterVec
	queueLength *prometheus.GaugeVec
	firing      prometheus.Gauge
	lastSuccess *prometheus.GaugeVec
}

// Delivery results, the values of the result label.
const (
	resultSuccess = "success"
	resultError   = "error"
)

func newMetrics(reg prometheus.Registerer, sinks []string) (*metrics, error) {
	m := &metrics{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "routewarden_alert_deliveries_total",
			Help: "Attempts to deliver a batch of alerts to a sink, by result (success or error).",
		}, []string{"sink", "result"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "routewarden_alert_queue_dropped_total",
			Help: "Batches of alerts dropped, oldest first, because a sink's queue was full.",
		}, []string{"sink"}),
		queueLength: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "routewarden_alert_queue_length",
			Help: "Batches of alerts waiting in a sink's queue.",
		}, []string{"sink"}),
		firing: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "routewarden_alerts_firing",
			Help: "Alerts firing now.",
		}),
		lastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "routewarden_alert_last_success_timestamp_seconds",
			Help: "When a batch of alerts was last delivered to a sink, in seconds since the Unix epoch.",
		}, []string{"sink"}),
	}
	for _, s := range sinks {
		m.deliveries.WithLabelValues(s, resultSuccess)
		m.deliveries.WithLabelValues(s, resultError)
		m.dropped.WithLabelValues(s)
		m.queueLength.WithLabelValues(s)
	}
	if err := promreg.Register(reg, "alert", m.deliveries, m.dropped, m.queueLength, m.firing, m.lastSuccess); err != nil {
		return nil, err
	}
	return m, nil
}

// sinkMetrics are one sink's series. The last-success timestamp appears with
// the first delivery rather than as a misleading zero.
type sinkMetrics struct {
	success, failure, dropped prometheus.Counter
	queueLength               prometheus.Gauge
	lastSuccess               func() prometheus.Gauge
}

func (m *metrics) forSink(name string) sinkMetrics {
	return sinkMetrics{
		success:     m.deliveries.WithLabelValues(name, resultSuccess),
		failure:     m.deliveries.WithLabelValues(name, resultError),
		dropped:     m.dropped.WithLabelValues(name),
		queueLength: m.queueLength.WithLabelValues(name),
		lastSuccess: func() prometheus.Gauge { return m.lastSuccess.WithLabelValues(name) },
	}
}
