package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/routewarden/routewarden/bgp"
	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/internal/demo"
	"github.com/routewarden/routewarden/validator"
	"github.com/routewarden/routewarden/validator/continuous"
)

// event is one line the routewarden collector process prints for the harness.
type event struct {
	Ev          string  `json:"ev"`
	NS          int64   `json:"ns"`
	Routes      int     `json:"routes"`
	Findings    int     `json:"findings,omitempty"`
	Validations int     `json:"validations,omitempty"`
	ValidateSec float64 `json:"validateSec,omitempty"`
}

func emit(e event) {
	e.NS = time.Now().UnixNano()
	b, _ := json.Marshal(e)
	fmt.Println(string(b))
}

// verdictObserver reports the first validation that covers every route.
type verdictObserver struct {
	want        int
	mu          sync.Mutex
	validations int
	total       time.Duration
	done        bool
	onDone      func()
}

func (o *verdictObserver) Observe(s continuous.State, _ []continuous.Transition) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.validations++
	o.total += s.Duration
	if o.done || s.Frozen || s.Summary.Routes < o.want {
		return
	}
	o.done = true
	emit(event{Ev: "verdict", Routes: s.Summary.Routes, Findings: s.Summary.Findings, Validations: o.validations,
		ValidateSec: o.total.Seconds()})
	if o.onDone != nil {
		o.onDone()
	}
}

// runRWCollector is the routewarden side of the ingest bench, one process:
// the real bgp.Collector (defaults of routewarden.yaml: graceful restart with a
// 120 s window, ADD-PATH receive) and the real continuous loop (20 ms debounce,
// 30 s hold-down) validating against a static in-memory cluster whose
// allocations are exactly the announced prefixes. It prints "held" when the
// store holds every route and "verdict" at the first validation covering all.
func runRWCollector(args []string) error {
	fs := flag.NewFlagSet("rw-collector", flag.ContinueOnError)
	port := fs.Int("port", 0, "BGP listen port on 127.0.0.1")
	peer := fs.String("peer", "127.0.0.2", "the sender's address (a static neighbor)")
	family := fs.String("family", "ipv4", "ipv4 or ipv6")
	n := fs.Int("n", 1000, "prefixes announced")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the ingest here")
	memProfile := fs.String("memprofile", "", "write a heap profile at the first complete verdict here")
	validate := fs.Bool("validate", true, "run the validation loop (off: the collector and its store alone)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	w := workload(*family, *n)
	log := zerolog.New(os.Stderr).Level(zerolog.WarnLevel).With().Timestamp().Logger()
	reg := prometheus.NewRegistry()
	addr, err := netip.ParseAddr(*peer)
	if err != nil {
		return err
	}
	col, err := bgp.NewCollector(bgp.Config{ASN: 65000, RouterID: netip.MustParseAddr("192.0.2.1"),
		ListenAddresses: []string{"127.0.0.1"}, ListenPort: int32(*port), GracefulRestart: true,
		GraceWindow: 120 * time.Second,
		Neighbors:   []bgp.Neighbor{{Address: addr, PeerSettings: bgp.PeerSettings{ASN: 65000}}}}, log, reg)
	if err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	obs := &verdictObserver{want: w.N, onDone: func() {
		if *cpuProfile != "" {
			pprof.StopCPUProfile()
		}
		if *memProfile != "" {
			runtime.GC() // the profile shows the heap as of the last collection: make it this one
			if f, err := os.Create(*memProfile); err == nil {
				_ = pprof.WriteHeapProfile(f)
				f.Close()
			}
		}
	}}
	loop := continuous.New(col.Store(), demo.NewCluster(w.Cluster()), col, continuous.Options{
		Validator: validator.Options{}, HoldDown: 30 * time.Second, Debounce: 20 * time.Millisecond,
		WarmupTimeout: 2 * time.Minute, DeferGC: true}, obs)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return col.Run(ctx) })
	if *validate {
		g.Go(func() error { return loop.Run(ctx) })
	}
	g.Go(func() error {
		err := watchHeld(ctx, col.Store(), w.N)
		if !*validate {
			// No verdict without validation: "held" is the end.
			obs.Observe(continuous.State{Summary: validator.Summary{Routes: w.N}}, nil)
		}
		return err
	})
	emit(event{Ev: "ready"})
	return g.Wait()
}

// watchHeld prints "held" once the store holds want routes.
func watchHeld(ctx context.Context, s *rib.Store, want int) error {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			n := 0
			for _, p := range s.Peers() {
				n += p.Routes
			}
			if n >= want {
				emit(event{Ev: "held", Routes: n})
				return nil
			}
		}
	}
}
