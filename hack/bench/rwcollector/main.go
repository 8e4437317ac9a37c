// Command rwcollector is the routewarden side of the ingest bench
// (hack/bench), a process of its own: the harness builds and starts it, one
// per trial, and measures its CPU time and peak RSS. It is a binary apart from
// the harness so that it carries only what it runs: linked into the harness
// (which links client-go for its cluster-scale part) it held ~36 MB more
// RSS, binary pages and init-time heap, none of it routewarden's.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"golang.org/x/sync/errgroup"

	"github.com/routewarden/routewarden/bgp"
	"github.com/routewarden/routewarden/bgp/bmp"
	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/demo"
	"github.com/routewarden/routewarden/hack/bench/ingest"
	"github.com/routewarden/routewarden/monitor"
	"github.com/routewarden/routewarden/validator"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if err := runRWCollector(args); err != nil {
		fmt.Fprintln(os.Stderr, "rw-collector:", err)
		return 1
	}
	return 0
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

func (o *verdictObserver) Observe(s monitor.State, _ []monitor.Transition) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.validations++
	o.total += s.Duration
	if o.done || s.Frozen || s.Summary.Routes < o.want {
		return
	}
	o.done = true
	ev := ingest.Event{Ev: "verdict", NS: time.Now().UnixNano(), Routes: s.Summary.Routes, Findings: s.Summary.Findings,
		Validations: o.validations, ValidateSec: o.total.Seconds()}
	// Profiles first, then the line: on "verdict" the harness ends the
	// session, and GoBGP dropping its Adj-RIB-In (a copy of every path) would
	// otherwise be in the heap profile.
	if o.onDone != nil {
		o.onDone()
	}
	ingest.Emit(ev)
}

// runRWCollector runs one trial's collector:
// the real bgp.Collector (defaults of routewarden.yaml: graceful restart with a
// 120 s window, ADD-PATH receive) and the real monitoring loop (20 ms debounce,
// 30 s hold-down) validating against a static in-memory cluster whose
// allocations are exactly the announced prefixes. With -bmp-port the BMP
// station listens too, feeding the collector's Store as `routewarden run`
// wires it. It prints "held" when the store holds every route (from a BGP
// neighbor or a BMP-monitored peer) and "verdict" at the first validation
// covering all.
func runRWCollector(args []string) error {
	fs := flag.NewFlagSet("rw-collector", flag.ContinueOnError)
	port := fs.Int("port", 0, "BGP listen port on 127.0.0.1")
	peer := fs.String("peer", "127.0.0.2", "the sender's address (a static neighbor)")
	family := fs.String("family", "ipv4", "ipv4 or ipv6")
	n := fs.Int("n", 1000, "prefixes announced")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the ingest here")
	memProfile := fs.String("memprofile", "", "write a heap profile at the first complete verdict here")
	validate := fs.Bool("validate", true, "run the validation loop (off: the collector and its store alone)")
	bmpPort := fs.Int("bmp-port", 0, "also run the BMP station on this port of 127.0.0.1 (0: no station)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	w := ingest.New(*family, *n)
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
	var station *bmp.Station
	if *bmpPort > 0 {
		station, err = bmp.New(bmp.Config{Listen: fmt.Sprintf("127.0.0.1:%d", *bmpPort)}, col.Store(), log, reg)
		if err != nil {
			return err
		}
		if err := station.Listen(); err != nil {
			return err
		}
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
	loop := monitor.New(col.Store(), demo.NewCluster(w.Cluster()), col, monitor.Options{
		Validator: validator.Options{}, HoldDown: 30 * time.Second, Debounce: 20 * time.Millisecond,
		WarmupTimeout: 2 * time.Minute, DeferGC: true}, obs)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error { return col.Run(ctx) })
	if *validate {
		g.Go(func() error { return loop.Run(ctx) })
	}
	if station != nil {
		g.Go(func() error { return station.Run(ctx) })
	}
	g.Go(func() error {
		err := watchHeld(ctx, col.Store(), w.N)
		if !*validate {
			// No verdict without validation: "held" is the end.
			obs.Observe(monitor.State{Summary: validator.Summary{Routes: w.N}}, nil)
		}
		return err
	})
	ingest.Emit(ingest.Event{Ev: "ready"})
	return g.Wait()
}

// watchHeld prints "held" once the store holds want routes, those of direct
// BGP peers and of BMP-monitored peers together.
func watchHeld(ctx context.Context, s *rib.Store, want int) error {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			n := 0
			for _, p := range slices.Concat(s.Peers(), s.MonitoredPeers()) {
				n += p.Routes
			}
			if n >= want {
				ingest.Emit(ingest.Event{Ev: "held", Routes: n})
				return nil
			}
		}
	}
}
