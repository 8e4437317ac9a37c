package alert

import (
	"bytes"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/routewarden/routewarden/internal/testam"
)

// TestMetricsPassPromtool exposes every metric (a sink that delivered, one
// that failed and dropped) and has promtool lint them.
func TestMetricsPassPromtool(t *testing.T) {
	promtool := testam.RequireBinary(t, "PROMTOOL", "/usr/bin/promtool", "prometheus")
	ok := &fakeSink{name: "am-0:9093"}
	down := &fakeSink{name: "am-1:9093", gate: make(chan struct{}), started: make(chan struct{}, 10)}
	reg := prometheus.NewRegistry()
	d, _ := runDispatcher(t, DispatcherConfig{QueueSize: 1, ResendInterval: time.Hour}, []Sink{ok, down}, reg)
	d.Publish([]Alert{testAlert(1)})
	<-down.started
	d.Publish([]Alert{testAlert(1), testAlert(2)})
	d.Publish([]Alert{testAlert(2)})
	eventually(t, "a delivery and a drop", func() error {
		if len(ok.received()) == 0 || metricValue(t, reg, "routewarden_alert_queue_dropped_total",
			map[string]string{"sink": "am-1:9093"}) != 1 {
			return errNotYet
		}
		return nil
	})

	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	enc := expfmt.NewEncoder(&text, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"routewarden_alert_deliveries_total", "routewarden_alert_queue_dropped_total",
		"routewarden_alert_queue_length", "routewarden_alerts_firing", "routewarden_alert_last_success_timestamp_seconds"} {
		if !strings.Contains(text.String(), "\n"+name) {
			t.Errorf("%s is not exposed", name)
		}
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = &text
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics: %v\n%s\non:\n%s", err, out, text.String())
	}
	close(down.gate)
}

// TestDeliveryStatuses checks which answers are retried, what is counted,
// and that secrets stay out of the log.
func TestDeliveryStatuses(t *testing.T) {
	secret := "do-not-log-this-token"
	tokenFile := writeFile(t, t.TempDir(), "token", secret)
	tests := []struct {
		name         string
		status       []int
		wantRequests int
		wantErrors   float64
	}{
		{name: "accepted", status: []int{http.StatusOK}, wantRequests: 1},
		// A retried delivery carries the whole state: nothing more is sent after it succeeds.
		{name: "server errors are retried", status: []int{503, 500}, wantRequests: 3, wantErrors: 2},
		{name: "too many requests is retried", status: []int{429}, wantRequests: 2, wantErrors: 1},
		{name: "bad request is not retried", status: []int{400}, wantRequests: 1, wantErrors: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRequestRecorder(t, nil, tt.status...)
			sink, err := NewAlertmanager(AlertmanagerConfig{URL: srv.URL, BearerTokenFile: tokenFile,
				TLS: TLSConfig{CAFile: serverCA(t, srv.Server)}})
			if err != nil {
				t.Fatal(err)
			}
			reg := prometheus.NewRegistry()
			cfg := DispatcherConfig{ResendInterval: time.Hour, RetryMin: time.Millisecond, RetryMax: 5 * time.Millisecond}
			d, logs := runDispatcher(t, cfg, []Sink{sink}, reg)
			d.Publish([]Alert{testAlert(1)})
			name := strings.TrimPrefix(srv.URL, "https://")
			eventually(t, "delivery settles", func() error {
				success := metricValue(t, reg, "routewarden_alert_deliveries_total",
					map[string]string{"sink": name, "result": "success"})
				failure := metricValue(t, reg, "routewarden_alert_deliveries_total",
					map[string]string{"sink": name, "result": "error"})
				if n := len(srv.seen()); n < tt.wantRequests || failure != tt.wantErrors ||
					success+failure != float64(tt.wantRequests) {
					return errNotYet
				}
				return nil
			})
			if n := len(srv.seen()); n != tt.wantRequests {
				t.Errorf("%d requests, want %d", n, tt.wantRequests)
			}
			if strings.Contains(logs.String(), secret) {
				t.Errorf("the log holds the token:\n%s", logs)
			}
		})
	}
	for code, want := range map[int]bool{400: false, 401: false, 404: false, 408: true, 429: true, 500: true, 503: true} {
		if got := (&StatusError{StatusCode: code}).Retryable(); got != want {
			t.Errorf("StatusError{%d}.Retryable() = %v, want %v", code, got, want)
		}
	}
}
