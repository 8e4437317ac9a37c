// Package main is routewarden's benchmark harness (make bench, make
// bench-quick): ingest into routewarden (over BGP and into its BMP station), a
// bare gobgpd and BIRD, side by side;
// the engine, BMP station and detection-latency Go benchmarks; BENCHMARKS.md
// and docs/bench.png from the results.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/routewarden/routewarden/hack/bench/ingest"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "floor" {
		if err := runFloor(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// Results is everything one run measured.
type Results struct {
	Quick     bool           `json:"quick"`
	Started   time.Time      `json:"started"`
	Duration  float64        `json:"durationSec"`
	Machine   Machine        `json:"machine"`
	Trials    []Trial        `json:"trials"`
	GoBench   []GoBench      `json:"goBench"`
	Detection *Detection     `json:"detection,omitempty"`
	Cluster   *ClusterResult `json:"cluster,omitempty"`
	Notes     []string       `json:"notes,omitempty"`
	// Partial says what a run that measured only some workloads measured
	// (set by hand when its results are merged into a full run's).
	Partial string `json:"partial,omitempty"`
}

func run(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	quick := fs.Bool("quick", false, "tiny sizes, one trial: checks that the harness works")
	out := fs.String("out", "bench-results.json", "write the raw results here")
	md := fs.String("md", "", "write the report (BENCHMARKS.md) here")
	png := fs.String("png", "", "write the plot (docs/bench.png) here")
	goText := fs.String("gotext", "", "write the Go benchmarks' output here, as go test printed it (for benchstat)")
	gobgpd := fs.String("gobgpd", "", "gobgpd v4.8.0 binary (hack/tools/gobgp.sh builds it)")
	bird := fs.String("bird", "/usr/sbin/bird", "BIRD 2 daemon")
	birdc := fs.String("birdc", "/usr/sbin/birdc", "BIRD 2 client")
	trials := fs.Int("trials", 0, "trials per size (default 3, 1 with -quick)")
	profile := fs.Bool("profile", false, "write CPU and heap profiles of the routewarden collector")
	gobench := fs.Bool("gobench", true, "run the Go benchmarks (engine, BMP station, detection latency)")
	speakerMax := fs.Int("speaker-max", 1_000_000, "the largest N the GoBGP speaker sends (the raw sender sends all)")
	only := fs.String("only", "", "run only the workload of this name (e.g. ipv4-1M)")
	onlyCollectors := fs.String("collectors", "", "run only these collectors (comma-separated: routewarden,gobgpd,bird,routewarden-bmp,routewarden-noval,gobgpd-bmp)")
	cf := clusterFlags(fs)
	from := fs.String("from", "", "do not measure: re-render the report from this results file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *from != "" {
		b, err := os.ReadFile(*from)
		if err != nil {
			return err
		}
		var res Results
		if err := json.Unmarshal(b, &res); err != nil {
			return fmt.Errorf("reading %s: %w", *from, err)
		}
		if err := cf.merge(&res); err != nil {
			return err
		}
		return render(&res, *md, *png)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	dir, err := os.MkdirTemp("", "routewarden-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	e := &env{gobgpd: *gobgpd, bird: *bird, birdc: *birdc, dir: dir, profile: *profile,
		timeout: 5 * time.Minute, speakerMax: *speakerMax}
	if *profile {
		e.dir, _ = filepath.Abs("bench-profiles")
		_ = os.MkdirAll(e.dir, 0o755)
	}
	res := &Results{Quick: *quick, Started: time.Now().UTC(), Machine: machine()}
	plan := []ingest.Workload{ingest.New("ipv4", 10_000), ingest.New("ipv4", 100_000), ingest.New("ipv4", 1_000_000),
		ingest.New("ipv6", 100_000)}
	n := 3
	if *quick {
		plan, n = []ingest.Workload{ingest.New("ipv4", 2_000), ingest.New("ipv6", 2_000)}, 1
	}
	if *only != "" {
		plan = slices.DeleteFunc(plan, func(w ingest.Workload) bool { return w.Name != *only })
	}
	if *trials > 0 {
		n = *trials
	}
	if *quick {
		e.timeout = time.Minute // a few thousand routes: a trial this long is a broken one
	}
	collectors := []string{"routewarden", "gobgpd", "bird", "routewarden-bmp", "routewarden-noval", "gobgpd-bmp"}
	if *onlyCollectors != "" {
		want := strings.Split(*onlyCollectors, ",")
		collectors = slices.DeleteFunc(collectors, func(c string) bool { return !slices.Contains(want, c) })
	}
	if *gobgpd == "" {
		collectors = slices.DeleteFunc(collectors, func(c string) bool { return strings.HasPrefix(c, "gobgpd") })
		res.Notes = append(res.Notes, "gobgpd was not given (-gobgpd): no bare GoBGP collector")
	}
	if _, err := os.Stat(*bird); err != nil {
		collectors = slices.DeleteFunc(collectors, func(c string) bool { return c == "bird" })
		res.Notes = append(res.Notes, "BIRD not found: no BIRD collector")
	}
	broken := 0
	var benchFailed []string
	if *cf.only {
		plan = nil
	}
	if len(plan) > 0 && slices.ContainsFunc(collectors, func(c string) bool { return strings.HasPrefix(c, "routewarden") }) {
		if e.rwCollector, err = buildRWCollector(dir); err != nil {
			return err
		}
	}
	for _, w := range plan {
		trs, err := ingestTrials(ctx, e, w, n, collectors)
		res.Trials = append(res.Trials, trs...)
		if err != nil {
			return err
		}
		for _, t := range trs {
			if t.Err != "" {
				broken++
				res.Notes = append(res.Notes, fmt.Sprintf("trial failed: %s with the %s sender, %s #%d: %s",
					t.Collector, t.Sender, t.Workload, t.Trial, t.Err))
			}
		}
	}
	if res.Cluster = cf.run(ctx, dir, *quick); res.Cluster != nil && res.Cluster.Err != "" {
		broken++
		res.Notes = append(res.Notes, "cluster scale failed: "+res.Cluster.Err)
	}
	if *gobench && !*cf.only {
		gb, det, raw, notes, failed := goBenchmarks(ctx, *quick)
		res.GoBench, res.Detection = gb, det
		res.Notes = append(res.Notes, notes...)
		benchFailed = failed
		if *goText != "" {
			if err := os.WriteFile(*goText, raw, 0o644); err != nil {
				return err
			}
		}
	}
	res.Duration = time.Since(res.Started).Seconds()
	b, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		return err
	}
	if err := render(res, *md, *png); err != nil {
		return err
	}
	// At tiny sizes nothing may time out: a failed trial means the harness is
	// broken. At full sizes a trial that times out is a result (in the report).
	if broken > 0 && *quick {
		return fmt.Errorf("%d trial(s) failed (see above): the harness is broken", broken)
	}
	if len(benchFailed) > 0 {
		return fmt.Errorf("%d Go benchmark package(s) failed: %s", len(benchFailed), strings.Join(benchFailed, "; "))
	}
	return nil
}

// senders are the senders used for w: the raw sender always, the GoBGP
// speaker up to -speaker-max prefixes (loading a million paths into it
// through its API takes ~20 s, once per workload).
func (e *env) senders(w ingest.Workload) []string {
	if w.N > e.speakerMax {
		return []string{"raw"}
	}
	return []string{"raw", "gobgp"}
}

// ingestTrials runs n trials of w, alternating the collectors within each trial,
// with the raw sender and with the GoBGP speaker.
func ingestTrials(ctx context.Context, e *env, w ingest.Workload, n int, collectors []string) ([]Trial, error) {
	msgs, _, err := buildUpdates(w)
	if err != nil {
		return nil, err
	}
	var stream []byte // the same UPDATEs over BMP, for routewarden-bmp
	if slices.Contains(collectors, "routewarden-bmp") {
		if stream, err = buildBMPStream(msgs, netip.MustParseAddr("127.0.0.2")); err != nil {
			return nil, err
		}
	}
	var sp *gobgpSpeaker
	if slices.Contains(e.senders(w), "gobgp") {
		start := time.Now()
		if sp, err = newGobgpSpeaker(ctx, w); err != nil {
			return nil, err
		}
		defer sp.stop()
		fmt.Fprintf(os.Stderr, "bench: %s: GoBGP speaker loaded in %.1fs\n", w.Name, time.Since(start).Seconds())
	}
	var out []Trial
	for i := 1; i <= n; i++ {
		for _, c := range collectors {
			for _, s := range e.senders(w) {
				if rawOnly(c) && s != "raw" {
					continue
				}
				if ctx.Err() != nil {
					return out, ctx.Err()
				}
				t := Trial{Collector: c, Sender: s, Workload: w.Name, Family: w.Family, N: w.N, Trial: i}
				var snd sender = &rawSender{msgs: msgs}
				peer := "127.0.0.2"
				if s == "gobgp" {
					snd, peer = &speakerSender{sp: sp}, speakerLocal
				}
				if c == "routewarden-bmp" {
					snd = &bmpSender{stream: stream}
				}
				out = append(out, e.run(ctx, t, w, snd, peer))
			}
		}
	}
	return out, nil
}

// rawOnly: the split of routewarden's cost (without validation, GoBGP being
// watched) and the BMP station are measured with the raw sender only (which
// speaks BMP to the station).
func rawOnly(collector string) bool {
	return collector == "routewarden-noval" || collector == "gobgpd-bmp" || collector == "routewarden-bmp"
}
