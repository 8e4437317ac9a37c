package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ClusterOptions size the cluster-scale part (flags -cluster-*).
type ClusterOptions struct {
	Nodes    int           `json:"nodes"`
	Services int           `json:"services"`
	Settle   time.Duration `json:"settleNs"` // after sync, before the steady window
	Steady   time.Duration `json:"steadyNs"` // the steady-state window
	Outage   time.Duration `json:"outageNs"` // the API outage
	After    time.Duration `json:"afterNs"`  // the window counted after the outage
	Workers  int           `json:"workers"`
	ChurnFor time.Duration `json:"churnNs"` // the churn, after the steady window (routewarden only)
	Churn    ChurnRates    `json:"churnRates"`
}

// ClusterResult is the cluster-scale part of a run.
type ClusterResult struct {
	Options   ClusterOptions `json:"options"`
	Endpoints int            `json:"endpoints"`
	LoadSec   float64        `json:"loadSec"` // creating every object
	Procs     []ClusterProc  `json:"procs"`
	Err       string         `json:"error,omitempty"`
}

// ClusterProc is one watcher (the floor, or routewarden run) measured.
type ClusterProc struct {
	Name        string         `json:"name"`
	SyncSec     float64        `json:"syncSec"`              // start → synced (routewarden: inventory available)
	ListedSec   float64        `json:"listedSec"`            // start → every informer listed (routewarden's log)
	VerdictSec  float64        `json:"verdictSec,omitempty"` // start → first complete verdict (routewarden)
	PeakRSSMB   float64        `json:"peakRssMB"`
	SteadyRSSMB float64        `json:"steadyRssMB"`
	CPUSyncSec  float64        `json:"cpuSyncSec"`               // CPU seconds until the end of the settle window
	CPUSteady   float64        `json:"cpuSteadySec"`             // CPU seconds in the steady window
	ResyncSec   float64        `json:"resyncSec"`                // API back → synced again (routewarden: inventory available)
	CacheWait   float64        `json:"cacheWaitSec"`             // waiting for the API server's watch caches before the start
	PathsSent   int            `json:"pathsSent,omitempty"`      // by the ToR, over its one ADD-PATH session
	PathsHeld   int            `json:"pathsHeld,omitempty"`      // routes in routewarden's verdict at the end of the steady window
	Findings    *int           `json:"steadyFindings,omitempty"` // findings at the end of the steady window
	ByRule      map[string]int `json:"steadyByRule,omitempty"`
	Churn       *ChurnResult   `json:"churn,omitempty"`
	AtStart     Requests       `json:"atStart"`
	Steady      Requests       `json:"steady"`
	AfterOutage Requests       `json:"afterOutage"`
	RSS         []float64      `json:"rssMB"` // sampled every second from start
	Err         string         `json:"error,omitempty"`
}

// runCluster loads the workload into a real control plane and measures the
// floor and routewarden run against it, one after the other.
func runCluster(ctx context.Context, dir string, o ClusterOptions, routewardenBin, baseBin string) *ClusterResult {
	res := &ClusterResult{Options: o, Endpoints: o.Services * endpointsPerSlice}
	fail := func(err error) *ClusterResult { res.Err = err.Error(); return res }
	repo, _ := os.Getwd()
	crds := os.Getenv("ROUTEWARDEN_CRDS")
	if crds == "" || os.Getenv("KUBE_APISERVER") == "" {
		return fail(fmt.Errorf("ROUTEWARDEN_CRDS and KUBE_APISERVER are not set (eval \"$(hack/test-deps.sh)\")"))
	}
	if routewardenBin == "" {
		routewardenBin = filepath.Join(dir, "routewarden")
		if out, err := exec.Command("go", "build", "-o", routewardenBin, "./cmd/routewarden").CombinedOutput(); err != nil {
			return fail(fmt.Errorf("building routewarden: %v\n%s", err, out))
		}
	}
	cp, err := startControlPlane(repo, filepath.Join(dir, "kube"))
	if err != nil {
		return fail(err)
	}
	defer func() { _ = cp.stop() }()
	if err := cp.installCilium(crds); err != nil {
		return fail(err)
	}
	fmt.Fprintf(os.Stderr, "bench: cluster: loading %d nodes, %d services ...\n", o.Nodes, o.Services)
	took, err := cp.load(ctx, o.Nodes, o.Services, o.Workers)
	if err != nil {
		return fail(err)
	}
	res.LoadSec = took.Seconds()
	fmt.Fprintf(os.Stderr, "bench: cluster: loaded in %.1fs\n", res.LoadSec)
	self, _ := os.Executable()
	watchers := []watcher{floorWatcher(self, cp.kubeconfig), rwWatcher("routewarden", routewardenBin, cp.kubeconfig, dir)}
	if baseBin != "" {
		watchers = append(watchers, rwWatcher("routewarden-base", baseBin, cp.kubeconfig, dir))
	}
	for _, w := range watchers {
		if ctx.Err() != nil {
			break
		}
		p := measure(ctx, cp, w, o, dir)
		fmt.Fprintf(os.Stderr, "bench: cluster: %s: sync %.1fs, verdict %.1fs, steady RSS %.0f MB, peak %.0f MB %s\n",
			p.Name, p.SyncSec, p.VerdictSec, p.SteadyRSSMB, p.PeakRSSMB, p.Err)
		res.Procs = append(res.Procs, p)
	}
	return res
}

// churnRates are the churn's rates: 20 endpoint flips, one node delete and
// re-add and two Service creates and deletes a second.
var churnRates = ChurnRates{EndpointFlips: 20, NodeCycles: 1, ServiceCycles: 2}

// clusterOptions are the sizes of a full run and of bench-quick.
func clusterOptions(nodes, services int, outage time.Duration, quick bool) ClusterOptions {
	if quick {
		return ClusterOptions{Nodes: nodes, Services: services, Settle: time.Second, Steady: 2 * time.Second,
			Outage: outage, After: 5 * time.Second, Workers: 16, ChurnFor: 5 * time.Second, Churn: churnRates}
	}
	return ClusterOptions{Nodes: nodes, Services: services, Settle: 10 * time.Second, Steady: 30 * time.Second,
		Outage: outage, After: 30 * time.Second, Workers: 64, ChurnFor: 60 * time.Second, Churn: churnRates}
}

// clusterFlagSet are the -cluster-* flags.
type clusterFlagSet struct {
	nodes, services *int
	outage          *time.Duration
	only            *bool
	routewarden     *string
	base            *string
	from            *string
}

func clusterFlags(fs *flag.FlagSet) clusterFlagSet {
	return clusterFlagSet{
		nodes:       fs.Int("cluster-nodes", 5000, "cluster scale: Nodes and CiliumNodes (0: no cluster-scale part; -quick: 50)"),
		services:    fs.Int("cluster-services", 0, "cluster scale: LoadBalancer Services, each with a 10-endpoint slice (default 2 per node)"),
		outage:      fs.Duration("cluster-outage", 60*time.Second, "cluster scale: how long the API server is down (-quick: 3s)"),
		only:        fs.Bool("cluster-only", false, "run only the cluster-scale part"),
		routewarden: fs.String("routewarden", "", "routewarden binary for the cluster-scale part (default: built from ./cmd/routewarden)"),
		from:        fs.String("cluster-from", "", "with -from: take the cluster-scale part from this results file"),
		base:        fs.String("routewarden-base", "", "also measure this routewarden binary (an older build: before/after)"),
	}
}

// run runs the cluster-scale part, if asked for.
func (f clusterFlagSet) run(ctx context.Context, dir string, quick bool) *ClusterResult {
	nodes, outage := *f.nodes, *f.outage
	if quick && !flagSet("cluster-nodes") {
		nodes = 50
	}
	if quick && !flagSet("cluster-outage") {
		outage = 3 * time.Second
	}
	if nodes <= 0 {
		return nil
	}
	services := *f.services
	if services == 0 {
		services = 2 * nodes
	}
	return runCluster(ctx, dir, clusterOptions(nodes, services, outage, quick), *f.routewarden, *f.base)
}

// flagSet reports whether a -name flag was given on the command line.
func flagSet(name string) bool {
	for _, a := range os.Args[1:] {
		if a == "-"+name || a == "--"+name || strings.HasPrefix(a, "-"+name+"=") || strings.HasPrefix(a, "--"+name+"=") {
			return true
		}
	}
	return false
}

// merge takes the cluster-scale part from -cluster-from, when given.
func (f clusterFlagSet) merge(res *Results) error {
	if *f.from == "" {
		return nil
	}
	b, err := os.ReadFile(*f.from)
	if err != nil {
		return err
	}
	var other Results
	if err := json.Unmarshal(b, &other); err != nil {
		return fmt.Errorf("reading %s: %w", *f.from, err)
	}
	res.Cluster = other.Cluster
	return nil
}
