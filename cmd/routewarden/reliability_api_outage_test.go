package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/routewarden/routewarden/alert"
	"github.com/routewarden/routewarden/internal/testam"
	"github.com/routewarden/routewarden/internal/testkube"
	"github.com/routewarden/routewarden/internal/wait"
)

// falseAlertNames are the alerts a cache gone silent could invent.
var falseAlertNames = []string{"BGPStaleRoute", "BGPMissingRoute", "BGPForeignCIDR"}

// TestReliabilityAPIOutage stops etcd and kube-apiserver for
// ROUTEWARDEN_OUTAGE (default 60s) while the routes churn, then starts them
// again on the same data. Hold-down is 0, so any momentary false finding
// would alert.
//
// During the outage: node1 flaps its own CIDR every 2s, node2's BGP session
// is torn down and comes back with the same route, and late in the outage
// node3 starts announcing node1's CIDR and keeps it (a real foreign-cidr).
// The promise, checked on what routewarden sent (its own webhook) and what
// Alertmanager notified (Alertmanager's webhook) and lists:
//   - no BGPStaleRoute, BGPMissingRoute or BGPForeignCIDR alert is sent
//     before the API is back, and none at all except the real one;
//   - exactly one RoutewardenInventoryUnavailable episode fires and resolves;
//   - validation resumes by itself: the foreign CIDR announced during the
//     outage fires after it, and a Node deleted after it gives BGPStaleRoute.
//
// Transient real findings that begin and end within an outage are not
// reported (findings are frozen); that limit is in RELIABILITY.md.
func TestReliabilityAPIOutage(t *testing.T) {
	outage := relDuration(t, "ROUTEWARDEN_OUTAGE", 60*time.Second)
	t.Parallel()
	amHook, rwHook := newRelHook(t), newRelHook(t)
	am := testam.Start(t, amHook.URL)
	e := startE2E(t, apiOutageOptions(fmt.Sprintf(
		"  resendInterval: 2s\n  alertmanagers: [{url: %s}]\n  webhooks: [{url: %s}]", am.URL(), rwHook.URL)))
	env, logs, speakers, api := e.env, e.logs, e.speakers, e.api

	// No false alert may reach anyone, at any time before the real finding.
	noFalseAlert := func(when string) {
		t.Helper()
		for _, h := range []*relHook{rwHook, amHook} {
			if got := h.named(falseAlertNames...); len(got) > 0 {
				t.Fatalf("%s: false alerts sent: %v", when, got)
			}
		}
	}

	stopped := time.Now()
	env.Stop(t)
	wait.For(t, "RoutewardenInventoryUnavailable in Alertmanager", 60*time.Second,
		alertIn(am, alert.AlertInventoryUnavailable, "", "", true))
	t.Logf("inventory alert in Alertmanager %s after the API stopped", time.Since(stopped).Round(time.Millisecond))

	deadline := stopped.Add(outage)
	sessionReset, foreign := false, false
	for time.Now().Before(deadline) {
		withdraw(t, speakers[1], "10.244.1.0/24", 1)
		time.Sleep(300 * time.Millisecond)
		announce(t, speakers[1], "10.244.1.0/24", 1)
		elapsed := time.Since(stopped)
		if !sessionReset && elapsed > outage/3 {
			sessionReset = true
			speakers[2].Stop()
			wait.For(t, "routewarden to see node2's session down", 30*time.Second, func() error {
				var p struct{ Peers []struct{ State string } }
				if err := getJSON(api+"/api/v1/peers?peer=127.0.1.12", &p); err != nil {
					return err
				}
				if len(p.Peers) > 0 && p.Peers[0].State == "established" {
					return fmt.Errorf("still established")
				}
				return nil
			})
			speakers[2] = e.speaker(t, 2, true)
		}
		if !foreign && elapsed > 2*outage/3 {
			foreign = true
			announce(t, speakers[3], "10.244.1.0/24", 3)
		}
		noFalseAlert(fmt.Sprintf("%s into the outage", elapsed.Round(time.Second)))
		time.Sleep(max(0, min(2*time.Second, time.Until(deadline.Add(-time.Second)))))
	}
	if !foreign { // A very short ROUTEWARDEN_OUTAGE: still make the change during it.
		announce(t, speakers[3], "10.244.1.0/24", 3)
	}
	wait.For(t, "node2's session and all 4 routes back", 60*time.Second, func() error {
		var page struct{ Routes []struct{} }
		if err := getJSON(api+"/api/v1/routes", &page); err != nil {
			return err
		}
		if len(page.Routes) != 4 {
			return fmt.Errorf("%d routes", len(page.Routes))
		}
		return nil
	})
	if got := alertNames(t, am); len(got) != 1 {
		t.Errorf("at the end of the outage Alertmanager lists %v, want only the inventory alert", got)
	}
	noFalseAlert("at the end of the outage")

	restarted := time.Now()
	env.Restart(t)
	wait.For(t, "RoutewardenInventoryUnavailable to resolve", 120*time.Second,
		alertIn(am, alert.AlertInventoryUnavailable, "", "", false))
	wait.For(t, "Alertmanager to notify the inventory alert resolved", 60*time.Second,
		amHook.has("resolved", alert.AlertInventoryUnavailable, "", restarted))
	t.Logf("inventory alert resolved in Alertmanager %s after the API restarted",
		time.Since(restarted).Round(time.Millisecond))
	wait.For(t, "BGPForeignCIDR for the CIDR node3 took during the outage", 60*time.Second,
		alertIn(am, "BGPForeignCIDR", "10.244.1.0/24", "node3", true))
	t.Logf("foreign CIDR announced during the outage alerted %s after the API restarted",
		time.Since(restarted).Round(time.Millisecond))

	// The informers watch again: a Node deleted now is seen at once (the
	// inventory is available only after new informers have listed; it does
	// not wait for client-go's backoff). Seen means alerted in Alertmanager.
	deleted := time.Now()
	if out, err := env.Kubectl("delete", "node", "node2"); err != nil {
		t.Fatal(out)
	}
	wait.For(t, "BGPStaleRoute after the recovery", time.Minute, alertIn(am, "BGPStaleRoute", "10.244.2.0/24", "", true))
	t.Logf("a Node deleted right after the recovery was seen %s later", time.Since(deleted).Round(time.Millisecond))

	// Everything either webhook ever saw of the three rules is the two real findings.
	for name, h := range map[string]*relHook{"routewarden's webhook": rwHook, "Alertmanager's webhook": amHook} {
		for _, n := range h.named(falseAlertNames...) {
			genuine := (n.Labels["alertname"] == "BGPForeignCIDR" && n.Labels["prefix"] == "10.244.1.0/24" &&
				n.Labels["node"] == "node3") || (n.Labels["alertname"] == "BGPStaleRoute" &&
				n.Labels["prefix"] == "10.244.2.0/24")
			if !genuine || n.At.Before(restarted) || n.Status != "firing" {
				t.Errorf("%s received a false alert: %v", name, n)
			}
		}
		checkOneEpisode(t, name, h.named(alert.AlertInventoryUnavailable), restarted)
	}
	if t.Failed() {
		t.Logf("routewarden log:\n%s", logs.String())
	}
}

// checkOneEpisode checks the inventory alert's notices: one alert (one
// fingerprint, one start), firing until the API came back, then resolved and
// never firing again.
func checkOneEpisode(t *testing.T, who string, notices []relNotice, restarted time.Time) {
	t.Helper()
	fingerprints, starts := map[string]bool{}, map[time.Time]bool{}
	resolvedAt := time.Time{}
	for _, n := range notices {
		fingerprints[n.Fingerprint] = true
		starts[n.StartsAt.UTC()] = true
		switch {
		case n.Status == "resolved" && resolvedAt.IsZero():
			resolvedAt = n.At
			if n.At.Before(restarted) {
				t.Errorf("%s: inventory alert resolved before the API came back: %v", who, n)
			}
		case n.Status == "firing" && !resolvedAt.IsZero():
			t.Errorf("%s: inventory alert fired again after it resolved: %v", who, n)
		}
	}
	if len(fingerprints) != 1 || len(starts) != 1 || resolvedAt.IsZero() {
		t.Errorf("%s: inventory alert notices %v: want one alert (got %d fingerprints, %d start times) fired "+
			"then resolved", who, notices, len(fingerprints), len(starts))
	}
}

// TestReliabilityAPIOutageBlindAfterRecovery: after an outage client-go's
// reflectors wait out their backoff before they list again (after 30 s of
// failures, each retry waits 13-26 s; up to 60 s after longer ones), and until
// then their cache no longer changes. routewarden must not validate against
// that cache: it reports itself ready only once informers started after the
// API came back have listed. A node that joins right after routewarden is
// ready again is known to it: its route is no stale route. (Before the fix
// routewarden was ready as soon as /readyz answered and stayed blind for
// 56-87 s after a 60 s outage: node4's route gave a false BGPStaleRoute.)
// The outage is ROUTEWARDEN_OUTAGE, default 30s: long enough for the backoff.
func TestReliabilityAPIOutageBlindAfterRecovery(t *testing.T) {
	outage := relDuration(t, "ROUTEWARDEN_OUTAGE", 30*time.Second)
	t.Parallel()
	hook := newRelHook(t)
	e := startE2E(t, apiOutageOptions(fmt.Sprintf("  resendInterval: 2s\n  webhooks: [{url: %s}]", hook.URL)))
	env, api := e.env, e.api
	env.Stop(t)
	wait.For(t, "routewarden not ready", time.Minute, func() error {
		if getJSON(api+"/readyz", nil) == nil {
			return fmt.Errorf("still ready")
		}
		return nil
	})
	time.Sleep(outage)
	env.Restart(t)
	restarted := time.Now()
	wait.For(t, "routewarden ready again", 2*time.Minute, func() error { return getJSON(api+"/readyz", nil) })
	t.Logf("routewarden ready again %s after the API restarted", time.Since(restarted).Round(time.Millisecond))
	joined := time.Now()
	env.Apply(t, writeFile(t, "node4.yaml", testkube.NodeManifest(4)+"---\n"+testkube.CiliumNodeManifest(4)))
	e.speaker(t, 4, true)
	wait.For(t, "node4's route", time.Minute, func() error {
		var page struct{ Routes []struct{} }
		if err := getJSON(api+"/api/v1/routes", &page); err != nil || len(page.Routes) != 4 {
			return fmt.Errorf("%d routes (%v)", len(page.Routes), err)
		}
		return nil
	})
	time.Sleep(5 * time.Second)
	// node4 exists before its speaker announces: with hold-down 0 that is a
	// real missing route for a moment, and it shows routewarden saw node4.
	for _, n := range hook.named(falseAlertNames...) {
		if n.Labels["alertname"] == "BGPMissingRoute" && n.Labels["node"] == "node4" {
			continue
		}
		t.Errorf("false alert %s after node4 joined %s after the recovery", n, n.At.Sub(joined).Round(time.Millisecond))
	}
	e.waitHealthy(t, 4) // and node4's route is validated as right
}
