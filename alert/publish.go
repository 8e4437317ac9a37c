package alert

import (
	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

// Publisher is the continuous validation's observer that feeds the
// Dispatcher: after every validation it publishes the complete set of firing
// alerts, plus one "inventory unavailable" alert while the Kubernetes API
// cannot be trusted (the findings are frozen then, not resolved).
type Publisher struct {
	d       *Dispatcher
	opts    FindingOptions
	linkFor func(validator.Finding) string
}

// NewPublisher publishes to d; linkFor gives each alert's generatorURL.
func NewPublisher(d *Dispatcher, opts FindingOptions, linkFor func(validator.Finding) string) *Publisher {
	return &Publisher{d: d, opts: opts, linkFor: linkFor}
}

// Observe implements monitor.Observer.
func (p *Publisher) Observe(s monitor.State, _ []monitor.Transition) {
	var firing []Alert
	for _, f := range s.Findings {
		if !f.Firing {
			continue
		}
		o := p.opts
		if p.linkFor != nil {
			o.GeneratorURL = p.linkFor(f.Finding)
		}
		firing = append(firing, FromFinding(f.Finding, o))
	}
	if s.Inventory.Synced && !s.Inventory.Available {
		firing = append(firing, InventoryUnavailable(s.Inventory.Reason, s.Inventory.Since, p.opts))
	}
	p.d.Publish(firing)
}
