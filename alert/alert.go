// Package alert turns validator findings into Prometheus Alertmanager alerts
// and delivers them: to Alertmanager's API (POST /api/v2/alerts) and to
// webhooks speaking Alertmanager's webhook payload. A Dispatcher keeps the
// state of what fires, re-sends it periodically, resolves what disappeared
// and gives every sink its own bounded queue and retries, so one unreachable
// destination never delays another.
package alert

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/prometheus/common/model"

	"github.com/routewarden/routewarden/validator"
)

// Alert is one alert as routewarden publishes it.
type Alert struct {
	Labels      map[string]string
	Annotations map[string]string
	// StartsAt is when the alert began; when zero the Dispatcher uses the
	// time it first saw the alert.
	StartsAt     time.Time
	GeneratorURL string
}

// Fingerprint is the alert's identity, computed from its non-empty labels
// exactly as Alertmanager does (16 hexadecimal digits).
func (a Alert) Fingerprint() string { return fingerprint(a.Labels) }

func fingerprint(labels map[string]string) string {
	ls := make(model.LabelSet, len(labels))
	for k, v := range labels {
		if v != "" {
			ls[model.LabelName(k)] = model.LabelValue(v)
		}
	}
	return ls.Fingerprint().String()
}

// labelString is the canonical text of the alert's label set, for sorting.
func (a Alert) labelString() string {
	ls := make(model.LabelSet, len(a.Labels))
	for k, v := range a.Labels {
		if v != "" {
			ls[model.LabelName(k)] = model.LabelValue(v)
		}
	}
	return ls.String()
}

// clone copies the alert's maps and drops empty labels (Alertmanager ignores
// them), so stored alerts are immune to callers mutating theirs.
func (a Alert) clone() Alert {
	labels := make(map[string]string, len(a.Labels))
	for k, v := range a.Labels {
		if v != "" {
			labels[k] = v
		}
	}
	a.Labels = labels
	a.Annotations = maps.Clone(a.Annotations)
	if a.Annotations == nil {
		a.Annotations = map[string]string{}
	}
	return a
}

// Notice is an alert as a sink delivers it.
type Notice struct {
	Alert
	// EndsAt is zero while the alert fires, and when it stopped firing once
	// it is resolved.
	EndsAt time.Time
	// Fingerprint is Alert.Fingerprint(), computed once.
	Fingerprint string
}

// Resolved reports whether the notice says the alert stopped firing.
func (n Notice) Resolved() bool { return !n.EndsAt.IsZero() }

// sortNotices orders notices by label set, then end time.
func sortNotices(ns []Notice) {
	keys := make(map[string]string, len(ns))
	for _, n := range ns {
		keys[n.Fingerprint] = n.labelString()
	}
	slices.SortFunc(ns, func(a, b Notice) int {
		return cmp.Or(cmp.Compare(keys[a.Fingerprint], keys[b.Fingerprint]), a.EndsAt.Compare(b.EndsAt))
	})
}

// AlertInventoryUnavailable is the alertname of the alert raised while the
// Kubernetes API is unreachable.
const AlertInventoryUnavailable = "RoutewardenInventoryUnavailable"

// RunbookInventoryUnavailable names that alert's runbook, as a rule ID names
// a rule's (docs/rules/inventory-unavailable.md).
const RunbookInventoryUnavailable = "inventory-unavailable"

// InventoryUnavailableSeverity is its severity, the chart's PrometheusRule's
// too (deploy's TestInventoryAlertAgrees).
const InventoryUnavailableSeverity = "warning"

// AlertName returns the alertname label of a rule's findings, from the rule's
// catalogue entry. A rule without one gets "BGP_" followed by its ID, so a
// finding still alerts.
func AlertName(rule validator.RuleID) string {
	if s, ok := validator.Spec(rule); ok && s.Alert != "" {
		return s.Alert
	}
	return "BGP_" + string(rule)
}

// FindingOptions are the parts of an alert that come from configuration.
type FindingOptions struct {
	// Cluster is the value of the cluster label; omitted when empty.
	Cluster string
	// RunbookBase is alerting.runbookBase (validator.RunbookURL).
	RunbookBase string
	// GeneratorURL links back to routewarden (for example its findings API).
	GeneratorURL string
}

// FromFinding turns a finding into an alert. Its StartsAt is zero: the
// Dispatcher stamps it when it first sees the alert.
func FromFinding(f validator.Finding, o FindingOptions) Alert {
	labels := map[string]string{
		"alertname": AlertName(f.Rule),
		"severity":  f.Severity.String(),
		"cluster":   o.Cluster,
		"node":      f.Node,
		"owner":     f.Owner,
	}
	if f.Prefix.IsValid() {
		labels["prefix"] = f.Prefix.String()
	}
	if f.NextHop.IsValid() {
		labels["next_hop"] = f.NextHop.String()
	}
	if f.Peer.IsValid() {
		labels["peer"] = f.Peer.String()
	}
	description := f.Message
	if f.Hint != "" {
		description += "\n" + f.Hint
	}
	annotations := map[string]string{"summary": f.Message, "description": description}
	if u := validator.RunbookURL(o.RunbookBase, string(f.Rule)); u != "" {
		annotations["runbook_url"] = u
	}
	return Alert{Labels: labels, Annotations: annotations, GeneratorURL: o.GeneratorURL}.clone()
}

// InventoryUnavailable is the alert raised while the Kubernetes API is
// unreachable, with the reason in its description.
func InventoryUnavailable(reason string, since time.Time, o FindingOptions) Alert {
	summary := "routewarden cannot read the cluster inventory from the Kubernetes API"
	annotations := map[string]string{
		"summary":     summary,
		"description": summary + ": " + reason + "\nRoutes are not validated until the API is reachable again.",
	}
	if u := validator.RunbookURL(o.RunbookBase, RunbookInventoryUnavailable); u != "" {
		annotations["runbook_url"] = u
	}
	labels := map[string]string{"alertname": AlertInventoryUnavailable, "severity": InventoryUnavailableSeverity, "cluster": o.Cluster}
	return Alert{Labels: labels, Annotations: annotations, StartsAt: since, GeneratorURL: o.GeneratorURL}.clone()
}
