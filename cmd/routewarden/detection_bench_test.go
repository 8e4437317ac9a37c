package main

// BenchmarkDetection measures detection latency end to end (issue 5, part 2),
// with a real kube-apiserver + etcd (internal/testkube, Cilium's CRDs), real
// GoBGP speakers (speaker.Speaker) and a real Alertmanager (internal/testam), and
// routewarden run in-process with validation.holdDown 0 and the default
// debounce. Every trial is timed from t0, taken just before the action is
// issued, to the receipt of the first poll answer showing its effect:
//
//	node-delete-to-alert      DELETE of Node node2 (its speaker still announces
//	                          10.244.2.0/24) → BGPStaleRoute listed by
//	                          Alertmanager's GET /api/v2/alerts (polled every 5 ms).
//	                          Target: p99 <= 1000 ms.
//	node-recreate-to-resolved POST of node2 again (same addresses; its CIDR is in
//	                          its CiliumNode) → BGPStaleRoute gone from
//	                          /api/v2/alerts (resolved alerts are not listed
//	                          there). No target.
//	route-withdraw-to-finding node3's speaker withdraws 10.244.3.0/24 → a firing
//	                          missing-route finding for it at routewarden's
//	                          /api/v1/findings (polled every 1 ms). Target: p99 <= 100 ms.
//	route-withdraw-to-alert   the same withdraw → BGPMissingRoute in Alertmanager
//	                          (polled every 5 ms once the finding was seen). No target.
//
// Three more measurements break the first and third down with routewarden's
// own timestamps (it runs in-process, on the same clock), and have no target:
//
//	node-delete-to-validation    t0 → the stale-route finding's firstSeen: the
//	                             start of the validation that first saw it (API
//	                             server, watch, informer, debounce).
//	node-delete-to-publish       t0 → the alert's startsAt as Alertmanager lists
//	                             it: when the dispatcher first saw it (ms precision).
//	route-withdraw-to-validation t0 → the missing-route finding's firstSeen (BGP
//	                             UPDATE, route store, debounce).
//
// Between trials the benchmark waits (untimed) for a clean state: no finding,
// no alert in Alertmanager, plus 50–150 ms of jitter. Run it with
//
//	eval "$(hack/test-deps.sh 2>/dev/null)"; export KUBE_APISERVER KUBECTL ETCD HELM
//	ROUTEWARDEN_DETECT_TRIALS=50 ROUTEWARDEN_DETECT_OUT=/tmp/detect.json \
//	  go test -run '^$' -bench Detection -benchtime 1x ./cmd/routewarden/
//
// It runs its trials once whatever b.N is (use -benchtime 1x). It is skipped
// when the control plane or Alertmanager binaries are absent, like the e2e test.
//
// Environment: ROUTEWARDEN_DETECT_TRIALS (trials per measurement, default 50);
// ROUTEWARDEN_DETECT_OUT (write the JSON results there, if set);
// ROUTEWARDEN_DETECT_DEBOUNCE (validation.debounce, default the config's 20ms:
// to see how much of a latency the debounce is). With -v every trial's
// latencies are printed to stderr.
//
// JSON schema of ROUTEWARDEN_DETECT_OUT (schema_version 1):
//
//	{
//	  "benchmark": "BenchmarkDetection", "schema_version": 1,
//	  "started_at": RFC 3339 time, "duration_s": number,
//	  "go_version": string, "goos": string, "goarch": string, "cpus": int,
//	  "trials": int,                       // ROUTEWARDEN_DETECT_TRIALS
//	  "config": {"holdDown": "0s", "debounce": "20ms (default)" or $ROUTEWARDEN_DETECT_DEBOUNCE,
//	             "alertmanager_poll": "5ms", "findings_poll": "1ms"},
//	  "measurements": [{
//	    "name": one of the seven names above, "description": string,
//	    "target_p99_ms": number or null, "met": bool or null (p99 <= target),
//	    "trials": int, "p50_ms": number, "p99_ms": number,
//	    "min_ms": number, "max_ms": number, "mean_ms": number,
//	    "samples_ms": [number, ...]        // in trial order
//	  }, ...]
//	}
//
// Percentiles interpolate linearly between closest ranks (numpy's default).
// The benchmark also reports p50-ms, p99-ms, min-ms and max-ms per measurement
// with b.ReportMetric for the first four, the unit prefixed by a short name
// (delete-alert, recreate-resolved, withdraw-finding, withdraw-alert), and
// logs one summary line for each of the seven.

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/testam"
)

const (
	amPoll       = 5 * time.Millisecond
	findingsPoll = time.Millisecond
	// detectTimeout bounds one trial's wait: a hung run, not a slow machine.
	detectTimeout = 2 * time.Minute
)

// detectionSpec is one measurement: its short name for b.ReportMetric (none:
// JSON and log only) and its p99 target (0: none).
type detectionSpec struct {
	name, short, description string
	target                   time.Duration
}

var detectionSpecs = []detectionSpec{
	{"node-delete-to-alert", "delete-alert", "Node deleted while its speaker announces its CIDR → BGPStaleRoute in " +
		"Alertmanager's GET /api/v2/alerts", time.Second},
	{"node-recreate-to-resolved", "recreate-resolved", "Node recreated with the same CIDR → BGPStaleRoute gone from " +
		"Alertmanager's GET /api/v2/alerts", 0},
	{"route-withdraw-to-finding", "withdraw-finding", "route withdrawn by a speaker → firing missing-route finding " +
		"at /api/v1/findings", 100 * time.Millisecond},
	{"route-withdraw-to-alert", "withdraw-alert", "route withdrawn by a speaker → BGPMissingRoute in " +
		"Alertmanager's GET /api/v2/alerts", 0},
	// Breakdowns from routewarden's own timestamps (in-process, same clock).
	{"node-delete-to-validation", "", "Node deleted → start of the validation that first saw the stale route " +
		"(the finding's firstSeen): API server, watch, informer and debounce", 0},
	{"node-delete-to-publish", "", "Node deleted → stale-route alert handed to the dispatcher (its startsAt as " +
		"Alertmanager lists it, millisecond precision)", 0},
	{"route-withdraw-to-validation", "", "route withdrawn → start of the validation that first saw it missing " +
		"(the finding's firstSeen): BGP UPDATE, route store and debounce", 0},
}

func BenchmarkDetection(b *testing.B) {
	trials := 50
	if v := os.Getenv("ROUTEWARDEN_DETECT_TRIALS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("ROUTEWARDEN_DETECT_TRIALS=%q: want a positive integer", v)
		}
		trials = n
	}
	debounce := "20ms (default)"
	if v := os.Getenv("ROUTEWARDEN_DETECT_DEBOUNCE"); v != "" {
		if d, err := time.ParseDuration(v); err != nil || d <= 0 {
			b.Fatalf("ROUTEWARDEN_DETECT_DEBOUNCE=%q: want a positive duration", v)
		}
		debounce = v
	}
	started := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := startDetectionEnv(b, os.Getenv("ROUTEWARDEN_DETECT_DEBOUNCE"))

	samples := map[string][]time.Duration{}
	b.ResetTimer()
	for i := range trials {
		waitClean(b, e)
		time.Sleep(50*time.Millisecond + rand.N(100*time.Millisecond))
		got := e.nodeTrial(b)
		waitClean(b, e)
		time.Sleep(50*time.Millisecond + rand.N(100*time.Millisecond))
		maps.Copy(got, e.withdrawTrial(b, ctx))
		var line []string
		for _, m := range detectionSpecs {
			samples[m.name] = append(samples[m.name], got[m.name])
			line = append(line, fmt.Sprintf("%s %s", m.name, got[m.name].Round(10*time.Microsecond)))
		}
		if testing.Verbose() { // b.Log keeps only 10 lines: the samples are in the JSON.
			fmt.Fprintf(os.Stderr, "trial %d/%d: %s\n", i+1, trials, strings.Join(line, ", "))
		}
	}
	b.StopTimer()

	var stats []detectionStats
	for _, m := range detectionSpecs {
		s := summarise(m.name, m.description, m.target, samples[m.name])
		stats = append(stats, s)
		if m.short != "" {
			b.ReportMetric(s.P50MS, m.short+"-p50-ms")
			b.ReportMetric(s.P99MS, m.short+"-p99-ms")
			b.ReportMetric(s.MinMS, m.short+"-min-ms")
			b.ReportMetric(s.MaxMS, m.short+"-max-ms")
		}
		b.Logf("%s: p50 %.1f ms, p99 %.1f ms, min %.1f ms, max %.1f ms (%d trials)", s.Name, s.P50MS, s.P99MS,
			s.MinMS, s.MaxMS, s.Trials)
	}
	if out := os.Getenv("ROUTEWARDEN_DETECT_OUT"); out != "" {
		r := detectionReport{Benchmark: "BenchmarkDetection", SchemaVer: 1, StartedAt: started.UTC(),
			DurationS: time.Since(started).Round(time.Millisecond).Seconds(), GoVersion: runtime.Version(),
			GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), Trials: trials,
			Config: map[string]any{"holdDown": "0s", "debounce": debounce,
				"alertmanager_poll": amPoll.String(), "findings_poll": findingsPoll.String()},
			Measurements: stats}
		if err := writeDetectionReport(out, r); err != nil {
			b.Error(err)
		}
	}
}

// nodeTrial deletes node2 and times its BGPStaleRoute alert, then recreates
// it and times the alert's resolution.
func (e *detectionEnv) nodeTrial(b *testing.B) map[string]time.Duration {
	b.Helper()
	prefix := nodeCIDR(2).String()
	var alert testam.Alert
	listed := func() (bool, error) {
		a, ok, err := e.listedAlert("BGPStaleRoute", prefix)
		alert = a
		return ok, err
	}
	gone := func() (bool, error) { ok, err := listed(); return !ok, err }

	t0 := time.Now()
	if err := e.kube.deleteNode(2); err != nil {
		b.Fatal(err)
	}
	at, err := pollUntil(amPoll, detectTimeout, listed)
	if err != nil {
		b.Fatalf("BGPStaleRoute %s after deleting node2: %v", prefix, err)
	}
	out := map[string]time.Duration{"node-delete-to-alert": at.Sub(t0), "node-delete-to-publish": alert.StartsAt.Sub(t0)}
	seen, ok, err := firingFinding(e.client, e.api, "stale-route", prefix)
	if err != nil || !ok {
		b.Fatalf("the stale-route finding behind BGPStaleRoute %s: found %v, %v", prefix, ok, err)
	}
	out["node-delete-to-validation"] = seen.Sub(t0)

	t0 = time.Now()
	if err := e.kube.createNode(2); err != nil {
		b.Fatal(err)
	}
	at, err = pollUntil(amPoll, detectTimeout, gone)
	if err != nil {
		b.Fatalf("BGPStaleRoute %s to resolve after recreating node2: %v", prefix, err)
	}
	out["node-recreate-to-resolved"] = at.Sub(t0)
	return out
}

// withdrawTrial withdraws node3's CIDR and times the missing-route finding
// and its alert, then announces it again (untimed).
func (e *detectionEnv) withdrawTrial(b *testing.B, ctx context.Context) map[string]time.Duration {
	b.Helper()
	prefix := nodeCIDR(3).String()
	var seen time.Time
	t0 := time.Now()
	if err := e.speakers[3].Withdraw(ctx, nodeCIDR(3), nodeAddr(3)); err != nil {
		b.Fatal(err)
	}
	at, err := pollUntil(findingsPoll, detectTimeout, func() (ok bool, err error) {
		seen, ok, err = firingFinding(e.client, e.api, "missing-route", prefix)
		return ok, err
	})
	if err != nil {
		b.Fatalf("missing-route finding for %s after the withdraw: %v", prefix, err)
	}
	out := map[string]time.Duration{"route-withdraw-to-finding": at.Sub(t0), "route-withdraw-to-validation": seen.Sub(t0)}
	at, err = pollUntil(amPoll, detectTimeout, func() (bool, error) {
		_, ok, err := e.listedAlert("BGPMissingRoute", prefix)
		return ok, err
	})
	if err != nil {
		b.Fatalf("BGPMissingRoute %s after the withdraw: %v", prefix, err)
	}
	out["route-withdraw-to-alert"] = at.Sub(t0)
	if err := e.speakers[3].Announce(ctx, nodeCIDR(3), nodeAddr(3)); err != nil {
		b.Fatal(err)
	}
	return out
}
