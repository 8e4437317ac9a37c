package rtr

import (
	"net/netip"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/routewarden/routewarden/internal/promreg"
)

// metrics are the server's; per-client series are labelled with the router's
// address and exist while it has a session open (rtr.maxSessions bounds how
// many there are: a client's series go when its last session closes).
type metrics struct {
	serial    prometheus.Gauge
	roas      prometheus.Gauge
	frozen    prometheus.Gauge
	held      prometheus.Gauge
	unresolv  prometheus.Gauge
	refused   *prometheus.CounterVec
	evicted   *prometheus.CounterVec
	connected *prometheus.GaugeVec
	queries   *prometheus.CounterVec
	lastQuery *prometheus.GaugeVec
	errors    *prometheus.CounterVec
	reports   *prometheus.CounterVec // every Error Report, kept when the client leaves
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		serial: prometheus.NewGauge(prometheus.GaugeOpts{Name: "routewarden_rtr_serial",
			Help: "The serial of the ROA set the RTR server serves."}),
		roas: prometheus.NewGauge(prometheus.GaugeOpts{Name: "routewarden_rtr_roas",
			Help: "ROAs the RTR server serves."}),
		frozen: prometheus.NewGauge(prometheus.GaugeOpts{Name: "routewarden_rtr_frozen",
			Help: "1 while the ROA set is frozen because the cluster inventory is unavailable."}),
		held: prometheus.NewGauge(prometheus.GaugeOpts{Name: "routewarden_rtr_update_held",
			Help: "1 while a new ROA set is held because it would withdraw more than rtr.maxDropShare of the served ROAs."}),
		unresolv: prometheus.NewGauge(prometheus.GaugeOpts{Name: "routewarden_rtr_unresolved",
			Help: "Allocations (pod CIDRs, VIPs) that get no ROA because a node announcing them has no known AS; " +
				"their pools get no AS0 ROA (they fail open)."}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "routewarden_rtr_refused_total",
			Help: "RTR connections refused, by reason: allowedClients (the client is outside rtr.allowedClients) or " +
				"maxSessions (rtr.maxSessions were open and none had been quiet for long)."}, []string{"reason"}),
		evicted: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "routewarden_rtr_sessions_evicted_total",
			Help: "RTR sessions closed to make room for another, by reason: perClient (the client's own oldest, " +
				"beyond 4 sessions from one address) or quiet (the session quiet longest, while rtr.maxSessions were " +
				"open; never a session from rtr.routers)."}, []string{"reason"}),
		connected: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "routewarden_rtr_client_sessions",
			Help: "RTR sessions open, per client."}, []string{"client"}),
		queries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "routewarden_rtr_client_queries_total",
			Help: "RTR queries answered, per client and kind (reset, serial)."}, []string{"client", "kind"}),
		lastQuery: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "routewarden_rtr_client_last_query_timestamp_seconds",
			Help: "When the client last queried (Unix time)."}, []string{"client"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "routewarden_rtr_client_error_reports_total",
			Help: "RTR Error Reports per client, sent (a bad PDU from it, or no data yet) or received."}, []string{"client", "direction"}),
	}
	m.reports = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "routewarden_rtr_error_reports_total",
		Help: "RTR Error Reports, sent or received, by error code (\"unreadable\": a received one that could not be " +
			"read); unlike the per-client series, kept when the client leaves."}, []string{"direction", "code"})
	if err := promreg.Register(reg, "RTR", m.serial, m.roas, m.frozen, m.held, m.unresolv, m.refused, m.evicted,
		m.connected, m.queries, m.lastQuery, m.errors, m.reports); err != nil {
		return nil, err
	}
	return m, nil
}

// errorReport counts an Error Report of client's, sent or received, with
// its code ("unreadable" when it could not be read).
func (m *metrics) errorReport(client netip.Addr, direction, code string) {
	m.errors.WithLabelValues(client.String(), direction).Inc()
	m.reports.WithLabelValues(direction, code).Inc()
}

// forget deletes a client's series (its last session closed).
func (m *metrics) forget(client string) {
	l := prometheus.Labels{"client": client}
	for _, v := range []interface{ DeletePartialMatch(prometheus.Labels) int }{m.connected, m.queries, m.lastQuery, m.errors} {
		v.DeletePartialMatch(l)
	}
}
