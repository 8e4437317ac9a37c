package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/testam"
	"github.com/routewarden/routewarden/internal/wait"
)

// TestDemo runs the demo end to end: findings fire, the stale route of the
// decommissioned node appears, and everything resolves.
func TestDemo(t *testing.T) {
	var stdout, stderr strings.Builder
	code := Execute(t.Context(), []string{"demo", "--pause", "200ms", "--http", "127.0.0.1:0"},
		strings.NewReader(""), &stdout, &stderr)
	out := stdout.String()
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr.String())
	}
	for _, want := range []string{
		"FIRED    critical foreign-cidr     10.244.1.0/24   node2",
		"FIRED    critical stale-route      10.244.3.0/24   (no node)",
		"it belonged to node node4",
		"RESOLVED critical stale-route",
		"convergence  pod-cidr withdraw of 10.244.3.0/24 by node4 still pending",
		"convergence  pod-cidr withdraw of 10.244.3.0/24 by node4 took",
		"Every finding resolved",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}

// TestDemoWithAlertmanager: demo --alertmanager sends the story's alerts to a
// real Alertmanager, which notifies its receiver of the stale route firing and
// then resolving.
func TestDemoWithAlertmanager(t *testing.T) {
	var mu sync.Mutex
	var notes []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var msg struct {
			Alerts []struct {
				Status string            `json:"status"`
				Labels map[string]string `json:"labels"`
			} `json:"alerts"`
		}
		_ = json.NewDecoder(r.Body).Decode(&msg)
		mu.Lock()
		defer mu.Unlock()
		for _, a := range msg.Alerts {
			notes = append(notes, a.Status+" "+a.Labels["alertname"]+" "+a.Labels["prefix"])
		}
	}))
	defer hook.Close()
	am := testam.Start(t, hook.URL)
	var stdout, stderr strings.Builder
	// A long pause between steps lets Alertmanager notify (group_wait 50ms) before the fix.
	code := Execute(t.Context(), []string{"demo", "--pause", "2s", "--http", "127.0.0.1:0", "--alertmanager", am.URL()},
		strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	wait.True(t, "Alertmanager to notify the stale route firing and resolved", time.Minute, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(notes, "firing BGPStaleRoute 10.244.3.0/24") &&
			slices.Contains(notes, "resolved BGPStaleRoute 10.244.3.0/24")
	})
}
