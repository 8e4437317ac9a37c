// Command routegen announces the routes of a scenario's routes.spec.yaml from
// in-process GoBGP speakers (one per Kubernetes node, each bound to its own
// loopback address) to real BGP daemons acting as route collectors (gobgpd,
// FRR's bgpd without zebra, BIRD 2 without a kernel protocol), one at a time
// on 127.0.0.1, waits until each has received every route, and writes the
// collectors' own dumps next to the spec. Nothing is installed in the kernel
// routing table and no traffic leaves the loopback range.
//
// Usage: routegen [flags] SCENARIO_DIR...
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

var verbose bool

type config struct {
	gobgpBin   string // directory holding gobgp and gobgpd
	frrDir     string // directory holding bgpd
	vtysh      string
	bird       string
	birdc      string
	collectors []string
	timeout    time.Duration
	keepTmp    bool
	verifyOnly bool
	noGoBGPMRT bool
	hold       time.Duration
	birdViaLo  bool
}

func main() {
	var cfg config
	var collectors string
	flag.StringVar(&cfg.gobgpBin, "gobgp-bin", "", "directory with gobgp and gobgpd (default: $ROUTEWARDEN_CACHE/bin or ~/.cache/routewarden/bin)")
	flag.StringVar(&cfg.frrDir, "frr-dir", "/usr/lib/frr", "directory with FRR's bgpd")
	flag.StringVar(&cfg.vtysh, "vtysh", "vtysh", "vtysh binary")
	flag.StringVar(&cfg.bird, "bird", "bird", "bird (BIRD 2) binary")
	flag.StringVar(&cfg.birdc, "birdc", "birdc", "birdc binary")
	flag.StringVar(&collectors, "collectors", "gobgp,frr,bird", "comma-separated collectors to run")
	flag.DurationVar(&cfg.timeout, "timeout", 60*time.Second, "how long to wait for each collector to receive every route")
	flag.BoolVar(&cfg.keepTmp, "keep-tmp", false, "keep the daemons' temporary directories (configs, logs)")
	flag.BoolVar(&cfg.noGoBGPMRT, "no-gobgp-mrt", false, "write no routes.mrt (gobgpd's first MRT table dump "+
		"comes 60s after start)")
	flag.BoolVar(&cfg.verifyOnly, "verify-only", false, "run no daemon: only check the existing dumps against the specs")
	flag.DurationVar(&cfg.hold, "hold", 0, "debugging: keep each collector (and its speakers) running this long after dumping, printing how to query it")
	flag.BoolVar(&cfg.birdViaLo, "bird-resolve-via-lo", false, "experiment: give BIRD's IGP tables a default route via \"lo\" so next hops resolve (\"via X on lo\" layout); not used for the committed dumps")
	flag.BoolVar(&verbose, "v", false, "verbose")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: routegen [flags] SCENARIO_DIR...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if cfg.gobgpBin == "" {
		cache := os.Getenv("ROUTEWARDEN_CACHE")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache", "routewarden")
		}
		cfg.gobgpBin = filepath.Join(cache, "bin")
	}
	cfg.collectors = strings.Split(collectors, ",")

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	go func() {
		<-ctx.Done()
		stopAll()
	}()

	failed := false
	for _, dir := range flag.Args() {
		if err := runScenario(ctx, &cfg, dir); err != nil {
			fmt.Fprintf(os.Stderr, "routegen: %s: %v\n", dir, err)
			failed = true
		}
		if ctx.Err() != nil {
			break
		}
	}
	stopAll()
	if failed || ctx.Err() != nil {
		os.Exit(1)
	}
}

func runScenario(ctx context.Context, cfg *config, dir string) error {
	spec, err := loadSpec(filepath.Join(dir, "routes.spec.yaml"))
	if err != nil {
		return err
	}
	if !cfg.verifyOnly {
		for _, c := range cfg.collectors {
			start := time.Now()
			var err error
			switch c {
			case "gobgp":
				err = runGoBGP(ctx, cfg, spec, dir)
			case "frr":
				err = runFRR(ctx, cfg, spec, dir)
			case "bird":
				err = runBIRD(ctx, cfg, spec, dir)
			default:
				err = fmt.Errorf("unknown collector %q", c)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", c, err)
			}
			fmt.Fprintf(os.Stderr, "routegen: %s: %s done in %s\n", dir, c, time.Since(start).Round(time.Second))
		}
	}
	return verifyDir(spec, dir)
}

// hold keeps a collector running for manual inspection when -hold is set.
func hold(ctx context.Context, cfg *config, how string) {
	if cfg.hold <= 0 {
		return
	}
	fmt.Fprintf(os.Stderr, "routegen: holding for %s; query with: %s\n", cfg.hold, how)
	select {
	case <-ctx.Done():
	case <-time.After(cfg.hold):
	}
}

// tempDir makes a private directory for one daemon run.
func tempDir(cfg *config, name string) (string, func(), error) {
	d, err := os.MkdirTemp("", "routegen-"+name+"-")
	if err != nil {
		return "", nil, err
	}
	if err := os.Chmod(d, 0o755); err != nil {
		return "", nil, err
	}
	return d, func() {
		if cfg.keepTmp {
			fmt.Fprintf(os.Stderr, "routegen: kept %s\n", d)
			return
		}
		os.RemoveAll(d)
	}, nil
}

// writeFile writes a dump atomically.
func writeFile(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// writeFamilyDumps writes routes.BASE.json (IPv4) and, when the scenario has
// IPv6 routes, routes.BASE-v6.json; without IPv6 a stale v6 dump is removed.
func writeFamilyDumps(dir, base string, v4, v6 []byte, hasV6 bool) error {
	if err := writeFile(filepath.Join(dir, "routes."+base+".json"), v4); err != nil {
		return err
	}
	v6Path := filepath.Join(dir, "routes."+base+"-v6.json")
	if !hasV6 {
		os.Remove(v6Path)
		return nil
	}
	return writeFile(v6Path, v6)
}
