// Package promreg registers a component's Prometheus collectors as one unit: all of them or none.
//
// Every component takes a prometheus.Registerer from its caller (no global registry). A nil registerer
// means "do not export": the component still counts, for its own use and its tests.
package promreg

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Register registers cs with reg in order. When one fails, the ones already registered are unregistered
// again, so a component that could not start leaves the registry as it found it; the error names what
// (the component's metrics) was being registered. A nil reg registers nothing.
func Register(reg prometheus.Registerer, what string, cs ...prometheus.Collector) error {
	if reg == nil {
		return nil
	}
	for i, c := range cs {
		if err := reg.Register(c); err != nil {
			for _, done := range cs[:i] {
				reg.Unregister(done)
			}
			return fmt.Errorf("registering %s metrics: %w", what, err)
		}
	}
	return nil
}
