package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

// TestFindingsSeriesForEveryRule: routewarden_findings and
// routewarden_findings_firing keep a series for every rule of the catalogue
// and severity (0 while clear), slow-convergence included, so an alerting rule
// on one sees it before it first fires.
func TestFindingsSeriesForEveryRule(t *testing.T) {
	reg := prometheus.NewRegistry()
	o, err := NewObserver(reg, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	o.Observe(monitor.State{Findings: []monitor.Tracked{{Finding: validator.Finding{
		Rule: validator.RuleSlowConvergence, Severity: validator.SeverityWarning}, Firing: true}}}, nil)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := map[string]map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if series[f.GetName()] == nil {
				series[f.GetName()] = map[string]float64{}
			}
			series[f.GetName()][labels["rule"]+"/"+labels["severity"]] = m.GetGauge().GetValue()
		}
	}
	for _, name := range []string{"routewarden_findings", "routewarden_findings_firing"} {
		for _, id := range validator.RuleIDs() {
			for _, sev := range []string{"info", "warning", "critical"} {
				if _, ok := series[name][id+"/"+sev]; !ok {
					t.Errorf("%s{rule=%q,severity=%q} is not exported", name, id, sev)
				}
			}
		}
		if v := series[name]["slow-convergence/warning"]; v != 1 {
			t.Errorf("%s{rule=\"slow-convergence\",severity=\"warning\"} = %v, want 1", name, v)
		}
	}
}
