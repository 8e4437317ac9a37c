package alert

import (
	"maps"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/routewarden/routewarden/validator"
)

func TestFromFinding(t *testing.T) {
	opts := FindingOptions{Cluster: "prod", RunbookBase: "https://docs.example/runbook", GeneratorURL: "http://rw:8080/findings"}
	full := validator.Finding{
		Severity: validator.SeverityCritical, Prefix: netip.MustParsePrefix("10.0.1.0/24"), Node: "node-a",
		NextHop: netip.MustParseAddr("192.168.1.10"), Peer: netip.MustParseAddr("192.168.1.1"),
		Owner: "node-b", Message: "10.0.1.0/24 is announced by node-a but allocated to node-b",
		Hint: "restart cilium on node-a",
	}
	bare := validator.Finding{Severity: validator.SeverityWarning, Prefix: netip.MustParsePrefix("10.9.0.0/16"),
		Message: "10.9.0.0/16 is not allocated"}

	tests := []struct {
		rule            validator.RuleID
		finding         validator.Finding
		opts            FindingOptions
		wantLabels      map[string]string
		wantDescription string
		wantRunbook     string
	}{
		{rule: validator.RuleStaleRoute, finding: full, opts: opts, wantLabels: map[string]string{
			"alertname": "BGPStaleRoute", "severity": "critical", "cluster": "prod", "prefix": "10.0.1.0/24",
			"node": "node-a", "next_hop": "192.168.1.10", "peer": "192.168.1.1", "owner": "node-b"},
			wantDescription: full.Message + "\n" + full.Hint, wantRunbook: "https://docs.example/runbook#stale-route"},
		{rule: validator.RuleForeignCIDR, finding: bare, opts: opts, wantLabels: map[string]string{
			"alertname": "BGPForeignCIDR", "severity": "warning", "cluster": "prod", "prefix": "10.9.0.0/16"},
			wantDescription: bare.Message, wantRunbook: "https://docs.example/runbook#foreign-cidr"},
		{rule: validator.RuleUnallocatedCIDR, finding: bare, wantLabels: map[string]string{
			"alertname": "BGPUnallocatedCIDR", "severity": "warning", "prefix": "10.9.0.0/16"},
			wantDescription: bare.Message},
		{rule: validator.RuleOutOfRange, finding: bare, wantLabels: map[string]string{
			"alertname": "BGPOutOfRangeRoute", "severity": "warning", "prefix": "10.9.0.0/16"},
			wantDescription: bare.Message},
		{rule: validator.RuleMissingRoute, finding: bare, wantLabels: map[string]string{
			"alertname": "BGPMissingRoute", "severity": "warning", "prefix": "10.9.0.0/16"},
			wantDescription: bare.Message},
		{rule: validator.RulePodCIDRDrift, finding: bare, wantLabels: map[string]string{
			"alertname": "BGPPodCIDRDrift", "severity": "warning", "prefix": "10.9.0.0/16"},
			wantDescription: bare.Message},
		{rule: validator.RuleDuplicateOrigin, finding: bare, wantLabels: map[string]string{
			"alertname": "BGPDuplicateOrigin", "severity": "warning", "prefix": "10.9.0.0/16"},
			wantDescription: bare.Message},
	}
	for _, tt := range tests {
		t.Run(string(tt.rule), func(t *testing.T) {
			f := tt.finding
			f.Rule = tt.rule
			a := FromFinding(f, tt.opts)
			if !maps.Equal(a.Labels, tt.wantLabels) {
				t.Errorf("labels = %v, want %v", a.Labels, tt.wantLabels)
			}
			want := map[string]string{"summary": f.Message, "description": tt.wantDescription}
			if tt.wantRunbook != "" {
				want["runbook_url"] = tt.wantRunbook
			}
			if !maps.Equal(a.Annotations, want) {
				t.Errorf("annotations = %q, want %q", a.Annotations, want)
			}
			if a.GeneratorURL != tt.opts.GeneratorURL || !a.StartsAt.IsZero() {
				t.Errorf("generatorURL %q startsAt %s, want %q and zero", a.GeneratorURL, a.StartsAt, tt.opts.GeneratorURL)
			}
		})
	}
	for _, r := range validator.Catalogue() {
		if got := AlertName(r.ID); got != r.Alert || r.Alert == "" {
			t.Errorf("rule %s alerts as %q, its catalogue entry says %q", r.ID, got, r.Alert)
		}
	}
}

func TestInventoryUnavailable(t *testing.T) {
	since := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	a := InventoryUnavailable("dial tcp 10.96.0.1:443: connection refused", since, FindingOptions{Cluster: "prod"})
	wantLabels := map[string]string{"alertname": "RoutewardenInventoryUnavailable", "severity": "warning", "cluster": "prod"}
	if !maps.Equal(a.Labels, wantLabels) || !a.StartsAt.Equal(since) {
		t.Errorf("labels %v since %s, want %v since %s", a.Labels, a.StartsAt, wantLabels, since)
	}
	if d := a.Annotations["description"]; !strings.Contains(d, "connection refused") || a.Annotations["summary"] == "" {
		t.Errorf("annotations %q lack the reason or a summary", a.Annotations)
	}
	// The reason is an annotation, not a label: a changing reason keeps the alert's identity.
	b := InventoryUnavailable("timeout", since, FindingOptions{Cluster: "prod"})
	if a.Fingerprint() != b.Fingerprint() {
		t.Error("the reason changes the alert's identity")
	}
}

// TestFingerprintIsAlertmanagers checks the identity against Alertmanager's
// own (prometheus/common's label-set fingerprint), empty labels ignored.
func TestFingerprintIsAlertmanagers(t *testing.T) {
	tests := []map[string]string{
		{"alertname": "BGPStaleRoute"},
		{"alertname": "BGPStaleRoute", "prefix": "10.0.0.0/24", "node": "n1"},
		{"alertname": "BGPStaleRoute", "prefix": "10.0.0.0/24", "node": "n1", "peer": ""},
	}
	for _, labels := range tests {
		ls := model.LabelSet{}
		for k, v := range labels {
			if v != "" {
				ls[model.LabelName(k)] = model.LabelValue(v)
			}
		}
		if got, want := (Alert{Labels: labels}).Fingerprint(), ls.Fingerprint().String(); got != want || len(got) != 16 {
			t.Errorf("Fingerprint(%v) = %s, want %s", labels, got, want)
		}
	}
}
