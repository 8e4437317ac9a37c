package alert

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	amtemplate "github.com/prometheus/alertmanager/template"
	"github.com/prometheus/common/model"

	"github.com/routewarden/routewarden/internal/testam"
)

func notice(a Alert, startsAt, endsAt time.Time) Notice {
	a.StartsAt = startsAt
	return Notice{Alert: a, EndsAt: endsAt, Fingerprint: a.Fingerprint()}
}

// TestWebhookPayload posts batches and decodes them with Alertmanager's own
// template.Data.
func TestWebhookPayload(t *testing.T) {
	otherCluster := testAlert(3)
	otherCluster.Labels["cluster"] = "other"
	end := t0.Add(time.Minute)
	tests := []struct {
		name             string
		notices          []Notice
		wantStatus       string
		wantStatuses     []string
		wantGroupLabels  map[string]string
		wantGroupKey     string
		wantCommonLabels []string
		wantCommonAnnots []string
	}{
		{name: "all firing", notices: []Notice{notice(testAlert(1), t0, time.Time{}), notice(testAlert(2), t0, time.Time{})},
			wantStatus: "firing", wantStatuses: []string{"firing", "firing"},
			wantGroupLabels: map[string]string{"cluster": "test"}, wantGroupKey: `{}:{cluster="test"}`,
			wantCommonLabels: []string{"alertname", "cluster", "severity"}, wantCommonAnnots: []string{"runbook_url"}},
		{name: "one firing, one resolved", notices: []Notice{notice(testAlert(1), t0, time.Time{}), notice(testAlert(2), t0, end)},
			wantStatus: "firing", wantStatuses: []string{"firing", "resolved"},
			wantGroupLabels: map[string]string{"cluster": "test"}, wantGroupKey: `{}:{cluster="test"}`,
			wantCommonLabels: []string{"alertname", "cluster", "severity"}, wantCommonAnnots: []string{"runbook_url"}},
		{name: "all resolved, one alert", notices: []Notice{notice(testAlert(2), t0, end)},
			wantStatus: "resolved", wantStatuses: []string{"resolved"},
			wantGroupLabels: map[string]string{"cluster": "test"}, wantGroupKey: `{}:{cluster="test"}`,
			wantCommonLabels: []string{"alertname", "cluster", "next_hop", "node", "prefix", "severity"},
			wantCommonAnnots: []string{"description", "runbook_url", "summary"}},
		{name: "two clusters", notices: []Notice{notice(testAlert(1), t0, time.Time{}), notice(otherCluster, t0, time.Time{})},
			wantStatus: "firing", wantStatuses: []string{"firing", "firing"},
			wantGroupLabels: map[string]string{}, wantGroupKey: `{}:{}`,
			wantCommonLabels: []string{"alertname", "severity"}, wantCommonAnnots: []string{"runbook_url"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := newWebhookRecorder(t, false)
			sink, err := NewWebhook(WebhookConfig{URL: rec.URL, Receiver: "bgp-team", ExternalURL: "http://rw:8080"})
			if err != nil {
				t.Fatal(err)
			}
			defer sink.(interface{ CloseIdleConnections() }).CloseIdleConnections()
			if err := sink.Send(context.Background(), tt.notices); err != nil {
				t.Fatal(err)
			}
			msgs, _ := rec.received()
			if len(msgs) != 1 {
				t.Fatalf("%d messages, want 1", len(msgs))
			}
			m := msgs[0]
			if m.Version != "4" || m.GroupKey != tt.wantGroupKey || m.TruncatedAlerts != 0 || m.Status != tt.wantStatus ||
				m.Receiver != "bgp-team" || m.ExternalURL != "http://rw:8080" {
				t.Errorf("header fields: version %q groupKey %q truncated %d status %q receiver %q externalURL %q",
					m.Version, m.GroupKey, m.TruncatedAlerts, m.Status, m.Receiver, m.ExternalURL)
			}
			if !maps.Equal(m.GroupLabels, amtemplate.KV(tt.wantGroupLabels)) {
				t.Errorf("groupLabels %v, want %v", m.GroupLabels, tt.wantGroupLabels)
			}
			if got := m.CommonLabels.Names(); !slices.Equal(got, tt.wantCommonLabels) {
				t.Errorf("commonLabels %v, want names %v", m.CommonLabels, tt.wantCommonLabels)
			}
			if got := m.CommonAnnotations.Names(); !slices.Equal(got, tt.wantCommonAnnots) {
				t.Errorf("commonAnnotations %v, want names %v", m.CommonAnnotations, tt.wantCommonAnnots)
			}
			if len(m.Alerts) != len(tt.notices) {
				t.Fatalf("%d alerts, want %d", len(m.Alerts), len(tt.notices))
			}
			for i, a := range m.Alerts {
				n := tt.notices[i]
				ls := model.LabelSet{}
				for k, v := range a.Labels {
					ls[model.LabelName(k)] = model.LabelValue(v)
				}
				if a.Status != tt.wantStatuses[i] || a.Fingerprint != ls.Fingerprint().String() ||
					!maps.Equal(a.Labels, amtemplate.KV(n.Labels)) || !maps.Equal(a.Annotations, amtemplate.KV(n.Annotations)) ||
					!a.StartsAt.Equal(n.StartsAt) || !a.EndsAt.Equal(n.EndsAt) || a.GeneratorURL != n.GeneratorURL {
					t.Errorf("alert %d = %+v, want %s %+v", i, a, tt.wantStatuses[i], n)
				}
			}
		})
	}
}

// TestWebhookPayloadMatchesAlertmanager sends the same alerts to a real
// Alertmanager, which notifies a webhook, and to routewarden's webhook sink:
// both payloads have the same fields, and the alerts the same content.
func TestWebhookPayloadMatchesAlertmanager(t *testing.T) {
	fromAM, fromUs := newWebhookRecorder(t, false), newWebhookRecorder(t, false)
	am := testam.Start(t, fromAM.URL)
	amSink, err := NewAlertmanager(AlertmanagerConfig{URL: am.URL()})
	if err != nil {
		t.Fatal(err)
	}
	hook, err := NewWebhook(WebhookConfig{URL: fromUs.URL})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := runDispatcher(t, DispatcherConfig{ResendInterval: time.Hour}, []Sink{amSink, hook}, nil)
	a := testAlert(1)
	d.Publish([]Alert{a})
	eventually(t, "Alertmanager notifies", func() error { return notifiedAs(fromAM, "firing", a.Fingerprint()) })
	d.Publish(nil)
	eventually(t, "Alertmanager notifies the resolution", func() error {
		return notifiedAs(fromAM, "resolved", a.Fingerprint())
	})

	amRaw, usRaw := fromAM.rawBodies(), fromUs.rawBodies()
	if len(usRaw) != 2 {
		t.Fatalf("the webhook sink sent %d payloads, want 2", len(usRaw))
	}
	for i := range 2 {
		amFields, usFields := jsonFields(t, amRaw[i]), jsonFields(t, usRaw[i])
		if !slices.Equal(amFields, usFields) {
			t.Errorf("payload %d fields differ:\nAlertmanager: %v\nroutewarden:  %v", i, amFields, usFields)
		}
	}
	amMsgs, _ := fromAM.received()
	usMsgs, _ := fromUs.received()
	for i := range 2 {
		want, got := amMsgs[i].Alerts[0], usMsgs[i].Alerts[0]
		if got.Status != want.Status || got.Fingerprint != want.Fingerprint || !maps.Equal(got.Labels, want.Labels) ||
			!maps.Equal(got.Annotations, want.Annotations) || !got.StartsAt.Equal(want.StartsAt) ||
			!got.EndsAt.Equal(want.EndsAt) || got.GeneratorURL != want.GeneratorURL || usMsgs[i].Status != amMsgs[i].Status {
			t.Errorf("payload %d alert:\nAlertmanager: %+v\nroutewarden:  %+v", i, want, got)
		}
	}
}

// jsonFields lists a payload's field names, its alerts' prefixed by "alerts.".
func jsonFields(t *testing.T, body []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	var alerts []map[string]json.RawMessage
	if err := json.Unmarshal(m["alerts"], &alerts); err != nil || len(alerts) == 0 {
		t.Fatalf("alerts: %v (%s)", err, m["alerts"])
	}
	fields := slices.Sorted(maps.Keys(m))
	for k := range alerts[0] {
		fields = append(fields, fmt.Sprintf("alerts.%s", k))
	}
	slices.Sort(fields)
	return fields
}
