package main

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/routewarden/routewarden/bgp/speaker"
	"github.com/routewarden/routewarden/internal/testam"
	"github.com/routewarden/routewarden/internal/wait"
)

// shutdownBound is how long routewarden may take to exit after SIGTERM.
const shutdownBound = 10 * time.Second

// TestReliabilityShutdown runs the built binary with a real cluster,
// speakers, Alertmanager and a webhook, lets alerts fire, and sends SIGTERM.
// Before that, SIGHUP reloads the config with every session kept. The
// promise: it exits 0 within shutdownBound, and nothing is reported
// resolved because it stopped: its webhook receives no resolved notice,
// Alertmanager still lists the alerts active and notifies no resolution
// (Alertmanager resolves them only after its resolve_timeout if no
// routewarden comes back to re-send them).
func TestReliabilityShutdown(t *testing.T) {
	t.Parallel() // Mostly waiting, like the outage tests: they share the wall time.
	bin := relBinary(t)
	e := newE2E(t, 3)
	amHook, rwHook := newRelHook(t), newRelHook(t)
	am := testam.Start(t, amHook.URL)
	cfg := writeFile(t, "routewarden.yaml", e.config(relOptions(fmt.Sprintf(
		"  resendInterval: 1s\n  alertmanagers: [{url: %s}]\n  webhooks: [{url: %s}]", am.URL(), rwHook.URL))))
	cmd, logs, exited := relStartBinary(t, bin, "run", "--config", cfg, "--log-format", "json")
	speakers := e.speaker(t, 1, true)
	s2, s3 := e.speaker(t, 2, true), e.speaker(t, 3, true)
	e.waitHealthy(t, 3)

	// node1 announces node2's CIDR: BGPForeignCIDR (and BGPDuplicateOrigin) fire.
	announce(t, speakers, "10.244.2.0/24", 1)
	wait.For(t, "BGPForeignCIDR in Alertmanager", time.Minute, alertIn(am, "BGPForeignCIDR", "10.244.2.0/24", "node1", true))
	wait.For(t, "Alertmanager to notify it", time.Minute, amHook.has("firing", "BGPForeignCIDR", "10.244.2.0/24", time.Time{}))
	before := alertNames(t, am)

	// SIGHUP re-reads the config even though the file did not change (the
	// file watch only reacts to changes), and the sessions stay up.
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	wait.True(t, "SIGHUP to reload the config", time.Minute, func() bool {
		return strings.Contains(logs.String(), `"message":"config reloaded"`)
	})
	for i, s := range map[int]*speaker.Speaker{1: speakers, 2: s2, 3: s3} {
		if !s.Established(context.Background()) {
			t.Errorf("node%d's session dropped on SIGHUP", i)
		}
	}

	logged := len(logs.String())
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		took := time.Since(sent)
		t.Logf("routewarden exited %s after SIGTERM", took.Round(time.Millisecond))
		if err != nil {
			t.Errorf("routewarden exited with %v after SIGTERM, want 0", err)
		}
		if took > shutdownBound {
			t.Errorf("routewarden took %s to exit after SIGTERM, want at most %s", took, shutdownBound)
		}
	case <-time.After(3 * shutdownBound):
		t.Fatalf("routewarden still runs %s after SIGTERM", 3*shutdownBound)
	}

	// Longer than resendInterval and Alertmanager's group_interval: anything
	// sent on the way out would have arrived.
	time.Sleep(3 * time.Second)
	for name, h := range map[string]*relHook{"routewarden's webhook": rwHook, "Alertmanager's webhook": amHook} {
		for _, n := range h.named() {
			if n.Status == "resolved" {
				t.Errorf("%s received a resolution: %v", name, n)
			}
		}
	}
	if after := alertNames(t, am); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Errorf("after the shutdown Alertmanager lists %v, want %v still active", after, before)
	}
	alerts, err := am.Alerts("")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range alerts {
		if a.Status.State != "active" || !a.EndsAt.After(time.Now()) {
			t.Errorf("after the shutdown %s is %s, ending %s; want active until Alertmanager's resolve_timeout",
				a.Labels["alertname"], a.Status.State, a.EndsAt)
		}
	}
	tail := logs.String()[logged:]
	if strings.Contains(tail, `"level":"error"`) || strings.Contains(tail, `"level":"warn"`) {
		t.Errorf("errors or warnings logged on the way out (a shutdown is not an outage):\n%s", tail)
	}
	for _, want := range []string{`"message":"stopping: `, `"message":"stopped"`} {
		if !strings.Contains(tail, want) {
			t.Errorf("no %s line on the way out:\n%s", want, tail)
		}
	}
}
