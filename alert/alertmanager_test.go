package alert

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/testam"
)

// wantInAlertmanager checks that am lists exactly the firing alerts, active,
// with their labels, annotations and start times.
func wantInAlertmanager(am *testam.Alertmanager, firing []Alert, gone []Alert) func() error {
	return func() error {
		list, err := am.Alerts("")
		if err != nil {
			return err
		}
		for _, a := range firing {
			g, ok := list[a.Fingerprint()]
			switch {
			case !ok:
				return fmt.Errorf("%s: %s missing; listed: %s", am.URL(), a.Labels["prefix"], keys(list))
			case g.Status.State != "active" || !maps.Equal(g.Labels, a.Labels) || !maps.Equal(g.Annotations, a.Annotations):
				return fmt.Errorf("%s: %s listed as %+v", am.URL(), a.Labels["prefix"], g)
			}
		}
		for _, a := range gone {
			if _, ok := list[a.Fingerprint()]; ok {
				return fmt.Errorf("%s: resolved %s still listed", am.URL(), a.Labels["prefix"])
			}
		}
		if len(list) != len(firing) {
			return fmt.Errorf("%s: %d alerts listed, want %d", am.URL(), len(list), len(firing))
		}
		return nil
	}
}

// TestAlertmanagerFiringThenResolved publishes two alerts to a real
// Alertmanager, then only one: the other disappears from Alertmanager's
// listing, and Alertmanager notifies it resolved with routewarden's end time.
func TestAlertmanagerFiringThenResolved(t *testing.T) {
	notified := newWebhookRecorder(t, false)
	am := testam.Start(t, notified.URL)
	sink, err := NewAlertmanager(AlertmanagerConfig{URL: am.URL() + "/"})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := runDispatcher(t, DispatcherConfig{ResendInterval: time.Hour}, []Sink{sink}, nil)
	a, b := testAlert(1), testAlert(2)

	d.Publish([]Alert{a, b})
	eventually(t, "both alerts firing in Alertmanager", wantInAlertmanager(am, []Alert{a, b}, nil))
	list, err := am.Alerts("")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range d.Firing() {
		if got, want := list[f.Fingerprint()].StartsAt, f.StartsAt.Truncate(time.Millisecond); !got.Equal(want) {
			t.Errorf("Alertmanager has startsAt %s, want %s", got, want)
		}
	}

	// Alertmanager only notifies a resolution it notified firing first.
	eventually(t, "Alertmanager notifies both firing", func() error {
		return notifiedAs(notified, "firing", a.Fingerprint(), b.Fingerprint())
	})

	before := time.Now()
	d.Publish([]Alert{a})
	after := time.Now()
	eventually(t, "b resolved: gone from Alertmanager's listing", wantInAlertmanager(am, []Alert{a}, []Alert{b}))
	// No filter brings a resolved alert back: the v2 API drops alerts whose
	// endsAt has passed before it applies active/silenced/inhibited.
	for _, q := range []string{"?active=true&silenced=true&inhibited=true&unprocessed=true", "?active=false"} {
		all, err := am.Alerts(q)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := all[b.Fingerprint()]; ok {
			t.Errorf("GET /api/v2/alerts%s lists the resolved alert", q)
		}
	}
	// Alertmanager's own notification shows the resolution and its time.
	eventually(t, "Alertmanager notifies b resolved", func() error {
		return notifiedAs(notified, "resolved", b.Fingerprint())
	})
	msgs, _ := notified.received()
	for _, m := range msgs {
		for _, n := range m.Alerts {
			if n.Status == "resolved" && (n.EndsAt.Before(before) || n.EndsAt.After(after)) {
				t.Errorf("resolved with endsAt %s, want between %s and %s", n.EndsAt, before, after)
			}
		}
	}
}

// notifiedAs checks that the recorder received a notification with status
// for each fingerprint.
func notifiedAs(r *webhookRecorder, status string, fingerprints ...string) error {
	msgs, _ := r.received()
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, n := range m.Alerts {
			if n.Status == status {
				seen[n.Fingerprint] = true
			}
		}
	}
	for _, fp := range fingerprints {
		if !seen[fp] {
			return fmt.Errorf("no %s notification for %s among %d", status, fp, len(msgs))
		}
	}
	return nil
}

// TestAlertmanagerHAPairOutage sends to an HA pair of real Alertmanagers and
// stops one of them: the other keeps receiving changes at once, and once the
// stopped one is back (with its storage or without) it shows every alert
// still firing and none of the resolved ones.
func TestAlertmanagerHAPairOutage(t *testing.T) {
	tests := []struct {
		name string
		// wipe restarts the Alertmanager with fresh storage.
		wipe bool
		// changeWhileDown publishes a change while it is down, so delivery
		// fails and the state is resynchronised when it succeeds again;
		// otherwise only the periodic resend brings the alerts back.
		changeWhileDown bool
		resend          time.Duration
	}{
		{name: "changes while down, same storage", changeWhileDown: true, resend: time.Hour},
		{name: "changes while down, fresh storage", wipe: true, changeWhileDown: true, resend: time.Hour},
		{name: "restarted between resends, fresh storage", wipe: true, resend: 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			am1, am2 := testam.Start(t, ""), testam.Start(t, "")
			var sinks []Sink
			for _, am := range []*testam.Alertmanager{am1, am2} {
				s, err := NewAlertmanager(AlertmanagerConfig{URL: am.URL(), Timeout: 5 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				sinks = append(sinks, s)
			}
			cfg := DispatcherConfig{ResendInterval: tt.resend, RetryMin: 20 * time.Millisecond,
				RetryMax: 200 * time.Millisecond}
			d, _ := runDispatcher(t, cfg, sinks, nil)
			a, b, c, e := testAlert(1), testAlert(2), testAlert(3), testAlert(4)

			d.Publish([]Alert{a, b, c})
			for _, am := range []*testam.Alertmanager{am1, am2} {
				eventually(t, "a, b, c firing", wantInAlertmanager(am, []Alert{a, b, c}, nil))
			}
			firing, resolved := []Alert{a, b, e}, []Alert{c}
			if !tt.changeWhileDown {
				d.Publish(firing)
				for _, am := range []*testam.Alertmanager{am1, am2} {
					eventually(t, "c resolved, e firing", wantInAlertmanager(am, firing, resolved))
				}
			}

			am2.Stop()
			if tt.changeWhileDown {
				d.Publish(firing)
				eventually(t, "the Alertmanager still up has the change", wantInAlertmanager(am1, firing, resolved))
			}
			am2.Start(tt.wipe)
			eventually(t, "the restarted Alertmanager has the state", wantInAlertmanager(am2, firing, resolved))
			eventually(t, "the other one too", wantInAlertmanager(am1, firing, resolved))
		})
	}
}
