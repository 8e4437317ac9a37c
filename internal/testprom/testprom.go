// Package testprom reads what a Prometheus registry holds, for tests.
package testprom

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// Counters returns every counter series of g with a non-zero value, keyed
// name{label="value",...} in the labels' order ("name{}" without labels).
func Counters(t testing.TB, g prometheus.Gatherer) map[string]float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			if m.GetCounter() == nil || m.GetCounter().GetValue() == 0 {
				continue
			}
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+`="`+l.GetValue()+`"`)
			}
			out[mf.GetName()+"{"+strings.Join(labels, ",")+"}"] = m.GetCounter().GetValue()
		}
	}
	return out
}

// Sum adds up the series of a collector's counters.
func Sum(t testing.TB, c prometheus.Collector) float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, v := range Counters(t, reg) {
		sum += v
	}
	return sum
}
