package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/logbuf"
)

// The helpers of the reliability tests (reliability_*_test.go), beside the
// end-to-end harness: a webhook that records every notification, routewarden
// run as the built binary, and metric scraping.

// relNotice is one alert of one webhook notification, as received.
type relNotice struct {
	At          time.Time
	Status      string
	Labels      map[string]string
	StartsAt    time.Time
	EndsAt      time.Time
	Fingerprint string
}

func (n relNotice) String() string {
	return fmt.Sprintf("%s %s %s prefix=%s node=%s", n.At.Format("15:04:05.000"), n.Status, n.Labels["alertname"],
		n.Labels["prefix"], n.Labels["node"])
}

// relHook is a webhook receiver (Alertmanager's payload, version 4) that
// records every alert of every notification, and the Authorization headers.
type relHook struct {
	*httptest.Server
	mu      sync.Mutex
	notices []relNotice
	auth    []string
}

func newRelHook(t *testing.T) *relHook {
	t.Helper()
	h := &relHook{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			Alerts []struct {
				Status      string            `json:"status"`
				Labels      map[string]string `json:"labels"`
				StartsAt    time.Time         `json:"startsAt"`
				EndsAt      time.Time         `json:"endsAt"`
				Fingerprint string            `json:"fingerprint"`
			} `json:"alerts"`
		}
		if err := json.NewDecoder(r.Body).Decode(&msg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		now := time.Now()
		h.mu.Lock()
		defer h.mu.Unlock()
		h.auth = append(h.auth, r.Header.Get("Authorization"))
		for _, a := range msg.Alerts {
			h.notices = append(h.notices, relNotice{At: now, Status: a.Status, Labels: a.Labels, StartsAt: a.StartsAt,
				EndsAt: a.EndsAt, Fingerprint: a.Fingerprint})
		}
	}))
	t.Cleanup(h.Close)
	return h
}

// named returns the notices received so far whose alertname is one of names
// (all of them when names is empty).
func (h *relHook) named(names ...string) []relNotice {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []relNotice
	for _, n := range h.notices {
		if len(names) == 0 || containsStr(names, n.Labels["alertname"]) {
			out = append(out, n)
		}
	}
	return out
}

// has checks that a notice with status for alertname and prefix arrived after since.
func (h *relHook) has(status, alertname, prefix string, since time.Time) func() error {
	return func() error {
		for _, n := range h.named(alertname) {
			if n.Status == status && n.Labels["prefix"] == prefix && !n.At.Before(since) {
				return nil
			}
		}
		return fmt.Errorf("no %s notification for %s %s since %s", status, alertname, prefix, since.Format("15:04:05"))
	}
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// relOptions is the routewarden config of the reliability tests, with the
// given alerting section; run gets a minute to stop after an outage.
func relOptions(alerting string) e2eOptions {
	return e2eOptions{Cluster: "reliability", Alerting: alerting, StopWithin: 60 * time.Second}
}

// apiOutageOptions is relOptions for a test that stops the API server.
func apiOutageOptions(alerting string) e2eOptions {
	o := relOptions(alerting)
	o.StopsAPI = true
	return o
}

// relStartBinary starts the built routewarden with args, its output in logs;
// exited receives its exit. When the test ends it is killed if still
// running, and its log shown if the test failed.
func relStartBinary(t *testing.T, bin string, args ...string) (*exec.Cmd, *logbuf.Buffer, <-chan error) {
	t.Helper()
	logs := &logbuf.Buffer{}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited, waited := make(chan error, 1), make(chan struct{})
	go func() {
		exited <- cmd.Wait()
		close(waited)
	}()
	t.Cleanup(func() {
		select {
		case <-waited:
		default:
			_ = cmd.Process.Kill()
			<-waited
		}
		if t.Failed() {
			t.Logf("routewarden %s log:\n%s", strings.Join(args, " "), logs.String())
		}
	})
	return cmd, logs, exited
}

// relMetric scrapes one sample (name plus its labels as printed, e.g.
// `x{sink="a"}`) from a /metrics URL; -1 when absent.
func relMetric(url, series string) (float64, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return -1, nil
}

// relDuration is the duration in environment variable name, else def.
func relDuration(t *testing.T, name string, def time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return d
}

// relBinary builds routewarden into the test's temporary folder (the Go build
// cache, shared with the test binary's build, makes it little more than a
// link) and returns its path.
func relBinary(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "routewarden")
	cmd := exec.Command("go", "build", "-o", path, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return path
}
