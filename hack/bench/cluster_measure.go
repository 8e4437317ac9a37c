package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// watcher is a program measured against the cluster: how to start it and
// how to tell it has synced (and, for routewarden, given its first verdict).
type watcher struct {
	name  string
	log   string // routewarden's JSON log, where it says how long its informers took to list
	bgp   string // routewarden's BGP listener, where the ToR connects
	api   string // routewarden's HTTP API
	cmd   func() *exec.Cmd
	state func() (synced, verdict, available bool)
}

// floorWatcher is `bench floor`: synced once it printed so.
func floorWatcher(self, kubeconfig string) watcher {
	var out string
	return watcher{name: "floor",
		cmd: func() *exec.Cmd {
			c := exec.Command(self, "floor", "-kubeconfig", kubeconfig)
			f, _ := os.CreateTemp("", "floor-out-")
			out = f.Name()
			c.Stdout = f
			return c
		},
		state: func() (bool, bool, bool) {
			b, _ := os.ReadFile(out)
			s := strings.Contains(string(b), "synced")
			return s, s, s
		}}
}

// rwWatcher is routewarden run, read from its HTTP API: synced when the
// inventory is, a verdict once warm-up (the ToR, its one static neighbor,
// sent End-of-RIB for both families) has ended and a validation ran. No
// hold-down: a finding fires at the first validation that finds it.
func rwWatcher(name, bin, kubeconfig, dir string) watcher {
	bgpPort, _ := freePort()
	httpPort, _ := freePort()
	cfg := filepath.Join(dir, name+"-cluster.yaml")
	_ = os.WriteFile(cfg, []byte(fmt.Sprintf(`cluster: {name: bench}
bgp: {asn: 65000, routerId: 192.0.2.1, listenAddresses: [127.0.0.1], listenPort: %d,
  neighbors: [{address: %s, asn: %d}]}
kubernetes: {kubeconfig: %s}
validation: {warmupTimeout: 2m, holdDown: 0s}
log: {level: info, format: json}
http: {listen: "127.0.0.1:%d"}
`, bgpPort, torAddr, torASN, kubeconfig, httpPort)), 0o600)
	api := fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	return watcher{name: name, log: filepath.Join(dir, name+"-cluster.log"),
		bgp: fmt.Sprintf("127.0.0.1:%d", bgpPort), api: api,
		cmd: func() *exec.Cmd { return exec.Command(bin, "run", "--config", cfg) },
		state: func() (bool, bool, bool) {
			f, err := getFindings(api, url.Values{})
			if err != nil {
				return false, false, false
			}
			return f.Inventory.Synced, f.Inventory.Synced && !f.WarmingUp && f.At != "", f.Inventory.Available
		}}
}

// measure runs w against the cluster: start, sync, settle, steady window,
// API outage, the window after it.
func measure(ctx context.Context, cp *controlPlane, w watcher, o ClusterOptions, dir string) ClusterProc {
	p := ClusterProc{Name: w.name}
	fail := func(err error) ClusterProc { p.Err = err.Error(); return p }
	wait, err := cp.waitWatchCaches(ctx)
	if err != nil {
		return fail(err)
	}
	p.CacheWait = wait.Seconds()
	m0, err := cp.requests(ctx)
	if err != nil {
		return fail(err)
	}
	start := time.Now()
	pr, err := startProc(w.name, filepath.Join(dir, w.name+"-cluster.log"), w.cmd())
	if err != nil {
		return fail(err)
	}
	defer pr.stop()
	tor := startToR(ctx, w, o)
	defer tor.close()
	var mu sync.Mutex
	var peak int64
	stopSampling := make(chan struct{})
	defer close(stopSampling)
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			rss, hwm, err := memKB(pr.pid())
			if err == nil {
				mu.Lock()
				p.RSS, peak = append(p.RSS, float64(rss)/1024), max(peak, hwm)
				mu.Unlock()
			}
			select {
			case <-stopSampling:
				return
			case <-t.C:
			}
		}
	}()
	poll := func(what string, timeout time.Duration, ok func() bool) error {
		return waitFor(timeout, 50*time.Millisecond, w.name+": "+what, func() (bool, error) {
			if err := pr.alive(); err != nil {
				return false, err
			}
			return ok(), ctx.Err()
		})
	}
	if err := poll("informers synced", 15*time.Minute, func() bool { s, _, _ := w.state(); return s }); err != nil {
		return fail(err)
	}
	p.SyncSec = time.Since(start).Seconds()
	if err := poll("first verdict", 10*time.Minute, func() bool { _, v, _ := w.state(); return v }); err != nil {
		return fail(err)
	}
	p.VerdictSec = time.Since(start).Seconds()
	if p.PathsSent, err = tor.wait(); err != nil {
		return fail(err)
	}
	p.ListedSec = p.SyncSec
	if w.log != "" {
		p.ListedSec = listedIn(w.log)
	}
	time.Sleep(o.Settle)
	cpu1, _ := cpuSeconds(pr.pid())
	m1, err := cp.requests(ctx)
	if err != nil {
		return fail(err)
	}
	p.AtStart, p.CPUSyncSec = m1.minus(m0), cpu1
	time.Sleep(o.Steady)
	cpu2, _ := cpuSeconds(pr.pid())
	rss, _, _ := memKB(pr.pid())
	m2, err := cp.requests(ctx)
	if err != nil {
		return fail(err)
	}
	p.Steady, p.CPUSteady, p.SteadyRSSMB = m2.minus(m1), cpu2-cpu1, float64(rss)/1024
	if w.api != "" {
		if err := steadyVerdict(w.api, &p); err != nil {
			return fail(err)
		}
		if o.ChurnFor > 0 {
			n0, s0 := validationStats(w.api)
			ch := churn(ctx, cp, o, o.ChurnFor, func(prefix string) bool { return staleFiring(w.api, prefix) })
			n1, s1 := validationStats(w.api)
			ch.Validations, ch.ValidationSec = int(n1-n0), s1-s0
			p.Churn = &ch
		}
	}
	if err := cp.stop(); err != nil {
		return fail(err)
	}
	time.Sleep(o.Outage)
	if err := cp.start(); err != nil {
		return fail(err)
	}
	back := time.Now()
	if err := poll("inventory available again", 10*time.Minute, func() bool { _, _, a := w.state(); return a }); err != nil {
		return fail(err)
	}
	p.ResyncSec = time.Since(back).Seconds()
	time.Sleep(time.Until(back.Add(o.After)))
	m3, err := cp.requests(ctx) // counted from zero since the restart
	if err != nil {
		return fail(err)
	}
	p.AfterOutage = m3
	mu.Lock()
	p.PeakRSSMB = float64(peak) / 1024
	mu.Unlock()
	return p
}

// listedIn reads "informers synced" and its listed_in_seconds from routewarden's log.
func listedIn(log string) float64 {
	b, _ := os.ReadFile(log)
	for _, line := range strings.Split(string(b), "\n") {
		var l struct {
			Message string  `json:"message"`
			Listed  float64 `json:"listed_in_seconds"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Message == "informers synced" {
			return l.Listed
		}
	}
	return 0
}
