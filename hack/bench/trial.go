package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/routewarden/routewarden/bgp/bgptest"
	"github.com/routewarden/routewarden/hack/bench/ingest"
)

// Trial is one measurement: one collector, one sender, one workload.
type Trial struct {
	Collector     string  `json:"collector"` // routewarden, routewarden-bmp, gobgpd, bird, ...
	Sender        string  `json:"sender"`    // raw, gobgp
	Workload      string  `json:"workload"`
	Family        string  `json:"family"`
	N             int     `json:"n"`
	Trial         int     `json:"trial"`
	HeldSec       float64 `json:"heldSec"`              // Established → every route held
	VerdictSec    float64 `json:"verdictSec,omitempty"` // Established → first complete verdict (routewarden)
	CPUSec        float64 `json:"cpuSec"`               // collector CPU from Established to done
	PeakRSSKB     int64   `json:"peakRssKB"`            // VmHWM
	BaseRSSKB     int64   `json:"baseRssKB"`            // VmRSS before the session
	BytesPerRoute float64 `json:"bytesPerRoute"`        // (peak - base) / N
	Validations   int     `json:"validations,omitempty"`
	ValidateSec   float64 `json:"validateSec,omitempty"`
	Findings      int     `json:"findings,omitempty"`
	Err           string  `json:"error,omitempty"`
}

// env is what trials need: binaries and a scratch directory.
type env struct {
	gobgpd, bird, birdc, dir string
	rwCollector              string // hack/bench/rwcollector, built by buildRWCollector
	profile                  bool
	timeout                  time.Duration
	speakerMax               int // the largest N the GoBGP speaker sends
}

// collectorHandle is a started collector.
type collectorHandle struct {
	p    *proc
	held func(context.Context) (int, error) // polled (gobgpd, bird)
	evs  chan ingest.Event                  // routewarden's own events
	stop func()
}

func (e *env) startCollector(ctx context.Context, name string, w ingest.Workload, port int, peer string, dir string) (*collectorHandle, error) {
	switch name {
	case "gobgpd", "gobgpd-bmp":
		g, err := startGobgpd(ctx, e.gobgpd, dir, port, peer, name == "gobgpd-bmp")
		if err != nil {
			return nil, err
		}
		return &collectorHandle{p: g.proc, held: g.heldAfterEOR, stop: g.stop}, nil
	case "bird":
		b, err := startBIRD(ctx, e.bird, e.birdc, dir, port, peer)
		if err != nil {
			return nil, err
		}
		return &collectorHandle{p: b.proc, held: b.held, stop: b.proc.stop}, nil
	}
	bgpPort, station := port, []string(nil)
	if name == "routewarden-bmp" {
		// The sender dials port, the BMP station's; the BGP collector,
		// whose Store the station feeds, listens on a port nobody dials.
		var err error
		if bgpPort, err = freePort(); err != nil {
			return nil, err
		}
		station = []string{"-bmp-port", fmt.Sprint(port)}
	}
	args := append([]string{"-port", fmt.Sprint(bgpPort), "-peer", peer, "-family", w.Family, "-n", fmt.Sprint(w.N),
		fmt.Sprintf("-validate=%t", name == "routewarden")}, station...)
	if e.profile {
		args = append(args, "-cpuprofile", filepath.Join(dir, "cpu.pprof"), "-memprofile", filepath.Join(dir, "heap.pprof"))
	}
	cmd := exec.Command(e.rwCollector, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p, err := startProc("routewarden", filepath.Join(dir, "routewarden.log"), cmd)
	if err != nil {
		return nil, err
	}
	evs := make(chan ingest.Event, 16)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var ev ingest.Event
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				evs <- ev
			}
		}
		close(evs)
	}()
	if ev, ok := <-evs; !ok || ev.Ev != "ready" {
		p.stop()
		return nil, fmt.Errorf("routewarden collector did not start: %v", p.alive())
	}
	return &collectorHandle{p: p, evs: evs, stop: p.stop}, nil
}

// buildRWCollector builds routewarden's collector process (hack/bench/rwcollector)
// into dir. It is a binary of its own, not the harness run again: the harness
// links client-go for its cluster-scale part, and those pages and that
// init-time heap would count in routewarden's peak RSS (~36 MB; notes.md).
func buildRWCollector(dir string) (string, error) {
	bin := filepath.Join(dir, "rw-collector")
	if out, err := exec.Command("go", "build", "-o", bin, "./hack/bench/rwcollector").CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the routewarden collector (run from the repository root): %v\n%s", err, out)
	}
	return bin, nil
}

// sender is a started sender: when the session came up, and a stop.
type sender interface {
	start(ctx context.Context, port int) (time.Time, error)
	stop()
}

// rawSender writes pre-built UPDATEs and End-of-RIB (buildUpdates) in one
// write; the session stays up, kept alive, until stop.
type rawSender struct {
	msgs []byte
	c    *bgptest.Conn
}

func (r *rawSender) start(ctx context.Context, port int) (time.Time, error) {
	c, err := dialRaw(ctx, netip.MustParseAddr("127.0.0.2"), fmt.Sprintf("127.0.0.1:%d", port), 65000)
	if err != nil {
		return time.Time{}, err
	}
	established := time.Now()
	r.c = c
	go func() { _ = c.WriteRaw(r.msgs) }()
	return established, nil
}

func (r *rawSender) stop() {
	if r.c != nil {
		_ = r.c.Close()
	}
}

type speakerSender struct{ sp *gobgpSpeaker }

func (s *speakerSender) start(ctx context.Context, port int) (time.Time, error) {
	return s.sp.connect(ctx, port)
}
func (s *speakerSender) stop() { s.sp.disconnect(context.Background()) }

// run measures one trial.
func (e *env) run(ctx context.Context, t Trial, w ingest.Workload, snd sender, peer string) Trial {
	err := e.measure(ctx, &t, w, snd, peer)
	if err != nil {
		t.Err = err.Error()
		fmt.Fprintf(os.Stderr, "bench: %s/%s/%s #%d: %v\n", t.Collector, t.Sender, t.Workload, t.Trial, err)
	} else {
		fmt.Fprintf(os.Stderr, "bench: %-11s %-5s %-9s #%d held %.3fs verdict %.3fs cpu %.2fs peak %d MB (%.0f B/route)\n",
			t.Collector, t.Sender, t.Workload, t.Trial, t.HeldSec, t.VerdictSec, t.CPUSec, t.PeakRSSKB/1024, t.BytesPerRoute)
	}
	return t
}

func (e *env) measure(ctx context.Context, t *Trial, w ingest.Workload, snd sender, peer string) error {
	dir := filepath.Join(e.dir, fmt.Sprintf("%s-%s-%s-%d", t.Collector, t.Sender, t.Workload, t.Trial))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	c, err := e.startCollector(ctx, t.Collector, w, port, peer, dir)
	if err != nil {
		return err
	}
	defer c.stop()
	time.Sleep(200 * time.Millisecond) // let the process settle before the baseline
	t.BaseRSSKB, _, _ = memKB(c.p.pid())
	est, err := snd.start(ctx, port)
	if err != nil {
		return err
	}
	defer snd.stop()
	cpu0, _ := cpuSeconds(c.p.pid())
	deadline := time.After(e.timeout)
	if c.evs != nil {
		for t.VerdictSec == 0 {
			select {
			case ev, ok := <-c.evs:
				if !ok {
					return fmt.Errorf("routewarden collector ended: %v", c.p.alive())
				}
				at := time.Unix(0, ev.NS).Sub(est).Seconds()
				switch ev.Ev {
				case "held":
					t.HeldSec = at
				case "verdict":
					t.VerdictSec, t.Validations, t.ValidateSec, t.Findings = at, ev.Validations, ev.ValidateSec, ev.Findings
				}
			case <-deadline:
				return fmt.Errorf("timed out after %s", e.timeout)
			}
		}
	} else {
		err := waitFor(e.timeout, 5*time.Millisecond, "waiting for every route", func() (bool, error) {
			if err := c.p.alive(); err != nil {
				return false, err
			}
			n, err := c.held(ctx)
			return err == nil && n >= w.N, nil
		})
		if err != nil {
			return err
		}
		t.HeldSec = time.Since(est).Seconds()
	}
	cpu1, _ := cpuSeconds(c.p.pid())
	_, t.PeakRSSKB, _ = memKB(c.p.pid())
	t.CPUSec = cpu1 - cpu0
	t.BytesPerRoute = float64(t.PeakRSSKB-t.BaseRSSKB) * 1024 / float64(w.N)
	return nil
}
