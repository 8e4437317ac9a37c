// Package metrics is routewarden's own Prometheus metrics of the monitoring
// loop: an observer of monitor that turns every validation into the findings,
// timing and state series (and every transition into a log line, keeping the
// recent ones for the API), and one that turns completed route changes into
// the convergence histogram. The registerer is injected; nothing registers
// on its own.
package metrics

import (
	"slices"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/internal/promreg"
	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

// Observer turns every validation into metrics and every transition into a
// log line.
type Observer struct {
	log         zerolog.Logger
	findings    *prometheus.GaugeVec
	firing      *prometheus.GaugeVec
	duration    prometheus.Histogram
	validations prometheus.Counter
	warmingUp   prometheus.Gauge
	frozen      prometheus.Gauge
	routes      prometheus.Gauge

	mu     sync.Mutex
	recent []monitor.Transition // the last keepTransitions, oldest first
}

// keepTransitions is how many transitions the API and status page show.
const keepTransitions = 200

// NewObserver registers the validation metrics.
func NewObserver(reg prometheus.Registerer, log zerolog.Logger) (*Observer, error) {
	o := &Observer{log: log.With().Str("component", "validation").Logger(),
		findings: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "routewarden_findings",
			Help: "Current findings (firing or within their hold-down), by rule and severity."}, []string{"rule", "severity"}),
		firing: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "routewarden_findings_firing",
			Help: "Findings that passed their hold-down and fire, by rule and severity."}, []string{"rule", "severity"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "routewarden_validation_duration_seconds",
			Help: "Time one full validation took.", Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)}),
		validations: prometheus.NewCounter(prometheus.CounterOpts{Name: "routewarden_validations_total",
			Help: "Validations run."}),
		warmingUp: prometheus.NewGauge(prometheus.GaugeOpts{Name: "routewarden_warming_up",
			Help: "1 until the inventory synced and every expected peer sent End-of-RIB (or warm-up timed out)."}),
		frozen: prometheus.NewGauge(prometheus.GaugeOpts{Name: "routewarden_validation_frozen",
			Help: "1 while the cluster inventory is unavailable and findings are frozen."}),
		routes: prometheus.NewGauge(prometheus.GaugeOpts{Name: "routewarden_routes",
			Help: "Routes validated in the last validation."}),
	}
	if err := promreg.Register(reg, "validation", o.findings, o.firing, o.duration, o.validations, o.warmingUp, o.frozen, o.routes); err != nil {
		return nil, err
	}
	o.record(monitor.State{})
	return o, nil
}

// Observe implements monitor.Observer.
func (o *Observer) Observe(s monitor.State, transitions []monitor.Transition) {
	o.validations.Inc()
	o.record(s)
	o.mu.Lock()
	o.recent = append(o.recent, transitions...)
	if n := len(o.recent) - keepTransitions; n > 0 {
		o.recent = slices.Delete(o.recent, 0, n)
	}
	o.mu.Unlock()
	for _, t := range transitions {
		ev := o.log.Warn()
		if t.Kind == monitor.Resolved {
			ev = o.log.Info()
		}
		ev.Str("transition", string(t.Kind)).Str("rule", string(t.Finding.Rule)).Str("severity", t.Finding.Severity.String()).
			Str("prefix", t.Finding.Prefix.String()).Str("node", t.Finding.Node).Str("owner", t.Finding.Owner).
			Msg(t.Finding.Message)
	}
}

// Transitions returns the last findings that fired or resolved, oldest first.
func (o *Observer) Transitions() []monitor.Transition {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.recent)
}

// record sets the gauges from a state.
func (o *Observer) record(s monitor.State) {
	if s.Duration > 0 {
		o.duration.Observe(s.Duration.Seconds())
	}
	o.warmingUp.Set(b2f(s.WarmingUp))
	o.frozen.Set(b2f(s.Frozen))
	o.routes.Set(float64(s.Summary.Routes))
	type key struct{ rule, sev string }
	all, firing := map[key]int{}, map[key]int{}
	for _, f := range s.Findings {
		k := key{string(f.Rule), f.Severity.String()}
		all[k]++
		if f.Firing {
			firing[k]++
		}
	}
	// Every rule and severity keeps a series (0 when clear), so alerting rules see it.
	for _, id := range validator.RuleIDs() {
		for _, sev := range severities {
			k := key{id, sev.String()}
			o.findings.WithLabelValues(k.rule, k.sev).Set(float64(all[k]))
			o.firing.WithLabelValues(k.rule, k.sev).Set(float64(firing[k]))
		}
	}
}

var severities = []validator.Severity{validator.SeverityInfo, validator.SeverityWarning, validator.SeverityCritical}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
