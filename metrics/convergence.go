package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/routewarden/routewarden/internal/promreg"
	"github.com/routewarden/routewarden/monitor"
)

// Convergence turns the route changes each validation found completed
// into the routewarden_convergence_seconds histogram, and counts those still
// pending.
type Convergence struct {
	seconds *prometheus.HistogramVec
	pending prometheus.Gauge
}

// convergenceBuckets span a reconciliation (tens of ms) to a hold time plus
// a graceful-restart time (minutes).
var convergenceBuckets = []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 180, 300, 600}

// NewConvergence registers the convergence metrics.
func NewConvergence(reg prometheus.Registerer) (*Convergence, error) {
	m := &Convergence{
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "routewarden_convergence_seconds",
			Help: "Time from a cluster change to the route change the collector saw, by direction " +
				"(announce, withdraw) and kind (pod-cidr, vip); one observation per route and node.",
			Buckets: convergenceBuckets}, []string{"direction", "kind"}),
		pending: prometheus.NewGauge(prometheus.GaugeOpts{Name: "routewarden_convergence_pending",
			Help: "Route changes the cluster asked for that the network has not made yet."}),
	}
	if err := promreg.Register(reg, "convergence", m.seconds, m.pending); err != nil {
		return nil, err
	}
	for _, d := range []string{"announce", "withdraw"} {
		for _, k := range []string{"pod-cidr", "vip"} {
			m.seconds.WithLabelValues(d, k) // present (empty) before the first change
		}
	}
	return m, nil
}

// Observe implements monitor.Observer.
func (m *Convergence) Observe(s monitor.State, _ []monitor.Transition) {
	for _, c := range s.Converged {
		m.seconds.WithLabelValues(string(c.Direction), string(c.Key.Kind)).Observe(c.Duration.Seconds())
	}
	m.pending.Set(float64(s.PendingChanges))
}
