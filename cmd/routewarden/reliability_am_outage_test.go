package main

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/testam"
	"github.com/routewarden/routewarden/internal/wait"
)

// amQueueSize is the Dispatcher's default queue size (alert.DispatcherConfig).
const amQueueSize = 100

// TestReliabilityAlertmanagerOutage stops the real Alertmanager for
// ROUTEWARDEN_AM_OUTAGE (default 2m) while findings fire and resolve, then
// starts it again on the same address with the same storage (its silences
// and notification log survive, as in a pod restart with a volume;
// Alertmanager keeps alerts only in memory, so it comes back knowing none).
//
// Before the outage A (foreign-cidr) and B (missing-route) fire. During it
// A resolves, C (unallocated-cidr) fires and stays, and D (foreign-cidr)
// fires and resolves, then flaps (at least 200 times, until the queue
// overflowed): far more batches than the queue holds. The promise:
//   - after Alertmanager returns, it lists exactly the alerts routewarden
//     has firing (B, C) and none of the resolved ones (A, D), and its
//     receiver is notified that A resolved;
//   - the queue never holds more than its bound, and what it dropped is
//     counted in routewarden_alert_queue_dropped_total.
func TestReliabilityAlertmanagerOutage(t *testing.T) {
	outage := relDuration(t, "ROUTEWARDEN_AM_OUTAGE", 2*time.Minute)
	t.Parallel()
	amHook := newRelHook(t)
	am := testam.Start(t, amHook.URL)
	e := startE2E(t, relOptions(fmt.Sprintf("  resendInterval: 1s\n  alertmanagers: [{url: %s}]", am.URL())))
	logs, speakers, api := e.logs, e.speakers, e.api
	sink := strings.TrimPrefix(am.URL(), "http://")
	dropped := fmt.Sprintf(`routewarden_alert_queue_dropped_total{sink="%s"}`, sink)
	queued := fmt.Sprintf(`routewarden_alert_queue_length{sink="%s"}`, sink)

	// A: node1 announces node2's CIDR. B: node3 withdraws its own.
	announce(t, speakers[1], "10.244.2.0/24", 1)
	withdraw(t, speakers[3], "10.244.3.0/24", 3)
	wait.For(t, "A firing", time.Minute, alertIn(am, "BGPForeignCIDR", "10.244.2.0/24", "node1", true))
	wait.For(t, "B firing", time.Minute, alertIn(am, "BGPMissingRoute", "10.244.3.0/24", "node3", true))
	wait.For(t, "Alertmanager to notify A firing", time.Minute,
		amHook.has("firing", "BGPForeignCIDR", "10.244.2.0/24", time.Time{}))

	stopped := time.Now()
	am.Stop()
	deadline := stopped.Add(outage)
	withdraw(t, speakers[1], "10.244.2.0/24", 1)   // A resolves.
	announce(t, speakers[2], "10.244.250.0/24", 2) // C fires.
	announce(t, speakers[2], "10.244.1.0/24", 2)   // D fires …
	wantFiring(t, api, "D firing", "BGPForeignCIDR 10.244.1.0/24 node2", true)
	withdraw(t, speakers[2], "10.244.1.0/24", 2) // … and resolves.
	wantFiring(t, api, "D resolved", "BGPForeignCIDR 10.244.1.0/24 node2", false)
	// D flaps: hundreds of changes, each a batch, more than the queue holds
	// between two retries; it flaps until the queue overflowed (at least 200
	// times) or the outage is nearly over.
	burst, flaps := time.Now(), 0
	for ; time.Until(deadline) > 10*time.Second; flaps++ {
		announce(t, speakers[2], "10.244.1.0/24", 2)
		time.Sleep(40 * time.Millisecond)
		withdraw(t, speakers[2], "10.244.1.0/24", 2)
		time.Sleep(40 * time.Millisecond)
		if flaps >= 200 && flaps%20 == 0 {
			if n, err := relMetric(api+"/metrics", dropped); err != nil || n > 0 {
				break
			}
		}
	}
	wantFiring(t, api, "D resolved after its flaps", "BGPForeignCIDR 10.244.1.0/24 node2", false)
	t.Logf("D flapped %d times in %s", flaps, time.Since(burst).Round(time.Millisecond))
	maxQueued := 0.0
	for time.Now().Before(deadline) {
		q, err := relMetric(api+"/metrics", queued)
		if err != nil {
			t.Fatal(err)
		}
		maxQueued = max(maxQueued, q)
		if q > amQueueSize {
			t.Fatalf("%s is %v, above the bound %d", queued, q, amQueueSize)
		}
		time.Sleep(max(0, min(time.Second, time.Until(deadline))))
	}
	drops, err := relMetric(api+"/metrics", dropped)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("during the %s outage: at most %v batches queued, %v dropped", outage, maxQueued, drops)
	// A batch is queued per change and per resend (every second); each retry
	// coalesces the backlog into one batch, but D's flaps queue far more
	// batches than the bound between two retries: the oldest must go.
	if outage >= time.Minute && drops <= 0 {
		t.Errorf("%s is %v after %d flaps of D, want > 0", dropped, drops, flaps)
	}
	if drops > 0 && !strings.Contains(logs.String(), "alert queue full: dropped the oldest batch") {
		t.Error("drops are counted but not logged")
	}

	restarted := time.Now()
	am.Start(false)
	firing := firingAlerts(t, api)
	want := []string{"BGPMissingRoute 10.244.3.0/24 node3", "BGPUnallocatedCIDR 10.244.250.0/24 node2"}
	if strings.Join(firing, ",") != strings.Join(want, ",") {
		t.Fatalf("routewarden has %v firing, want %v", firing, want)
	}
	wait.For(t, "Alertmanager to list exactly what fires", 2*time.Minute, func() error {
		if got := alertNames(t, am); strings.Join(got, ",") != strings.Join(firing, ",") {
			return fmt.Errorf("Alertmanager lists %v, want %v", got, firing)
		}
		return nil
	})
	t.Logf("Alertmanager had the state back %s after it restarted", time.Since(restarted).Round(time.Millisecond))
	wait.For(t, "Alertmanager to notify A resolved (its notification log survived the restart)", time.Minute,
		amHook.has("resolved", "BGPForeignCIDR", "10.244.2.0/24", restarted))
	wait.For(t, "Alertmanager to notify C firing", time.Minute,
		amHook.has("firing", "BGPUnallocatedCIDR", "10.244.250.0/24", restarted))
	for _, n := range amHook.named("BGPForeignCIDR") {
		if n.Labels["prefix"] == "10.244.1.0/24" && n.Status == "firing" {
			t.Errorf("D, resolved while Alertmanager was down, was notified firing: %v", n)
		}
	}
	if got := alertNames(t, am); strings.Join(got, ",") != strings.Join(firing, ",") {
		t.Errorf("once the backlog is delivered Alertmanager lists %v, want %v", got, firing)
	}
	if t.Failed() {
		t.Logf("Alertmanager notifications: %v", amHook.named())
	}
}

// firingAlerts lists what routewarden's API says fires, as "alertname prefix node".
func firingAlerts(t *testing.T, api string) []string {
	t.Helper()
	var f struct {
		Findings []struct {
			Rule   string `json:"rule"`
			Prefix string `json:"prefix"`
			Node   string `json:"node"`
		} `json:"findings"`
	}
	if err := getJSON(api+"/api/v1/findings?firing=true", &f); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{"foreign-cidr": "BGPForeignCIDR", "missing-route": "BGPMissingRoute",
		"unallocated-cidr": "BGPUnallocatedCIDR", "stale-route": "BGPStaleRoute", "duplicate-origin": "BGPDuplicateOrigin"}
	var out []string
	for _, x := range f.Findings {
		out = append(out, names[x.Rule]+" "+x.Prefix+" "+x.Node)
	}
	sort.Strings(out)
	return out
}

// wantFiring waits until routewarden's API shows the alert firing, or not.
func wantFiring(t *testing.T, api, what, alert string, firing bool) {
	t.Helper()
	wait.For(t, what, time.Minute, func() error {
		got := firingAlerts(t, api)
		if containsStr(got, alert) != firing {
			return fmt.Errorf("firing: %v", got)
		}
		return nil
	})
}
