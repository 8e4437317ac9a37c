package cli

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/demo"
)

const defaultDemoHTTP = "127.0.0.1:9479"

type demoFlags struct {
	alertmanagers []string
	httpAddr      string
	bgpPort       int
	pause         time.Duration
	keep          bool
}

func newDemoCmd(g *globalFlags) *cobra.Command {
	f := &demoFlags{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Replay the incident live on 127.0.0.1: no cluster and no router needed",
		Long: `demo starts routewarden's collector, an in-memory cluster and four real GoBGP speakers on 127.0.0.1
playing Cilium nodes, and replays the incident of cilium/cilium#18852:

  1. cluster-pool IPAM, but the nodes announce Node.spec.podCIDRs (the legacy speaker): foreign CIDRs;
  2. node4 is decommissioned while its machine keeps announcing: a stale route;
  3. the fix (BGP control plane, node4 switched off): every finding resolves.

Findings appear and resolve live in the terminal, and after each step a convergence line says which route
changes the cluster asked for were timed (how long the routes took to follow) or are still pending; the HTTP endpoints (/api/v1/findings, /metrics, …) are up
while it runs. --alertmanager sends the alerts to a real Alertmanager too.`,
		Example: `  routewarden demo
  routewarden demo --alertmanager http://127.0.0.1:9093 --keep`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDemo(cmd, g, f) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.alertmanagers, "alertmanager", nil, "Alertmanager URL to send the alerts to (repeatable)")
	fl.StringVar(&f.httpAddr, "http", defaultDemoHTTP, "address of the HTTP endpoints (the default falls back to a free port when taken)")
	fl.IntVar(&f.bgpPort, "bgp-port", 0, "BGP port of the collector on 127.0.0.1 (0: a free one)")
	fl.DurationVar(&f.pause, "pause", 3*time.Second, "time to look at the findings between steps")
	fl.BoolVar(&f.keep, "keep", false, "keep running (and serving HTTP) after the story ends, until Ctrl-C")
	return cmd
}

func runDemo(cmd *cobra.Command, g *globalFlags, f *demoFlags) error {
	if !cmd.Flags().Changed("log-level") {
		g.logLevel = "error" // the story is told on stdout; logs only for trouble
	}
	log, err := g.logger(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	port := f.bgpPort
	if port == 0 {
		if port, err = freeTCPPort(); err != nil {
			return err
		}
	}
	cfg, _, err := config.Load("")
	if err != nil {
		return err
	}
	cfg.Cluster.Name = "demo"
	cfg.BGP.ASN, cfg.BGP.RouterID, cfg.BGP.ListenPort = 65000, "192.0.2.1", port
	cfg.BGP.ListenAddresses = []string{"127.0.0.1"}
	cfg.BGP.DynamicNeighbors = []config.DynamicNeighborConfig{{Prefix: "127.0.1.0/24"}}
	cfg.Validation.HoldDown, cfg.Validation.WarmupTimeout = 0, time.Second
	cfg.HTTP.Listen = f.httpAddr
	page := "status page"
	if !cmd.Flags().Changed("http") && !free(f.httpAddr) {
		cfg.HTTP.Listen = "127.0.0.1:0" // 9479 is taken (another routewarden?): any free port, printed below
		page += "; " + f.httpAddr + " is taken, so a free port"
	}
	for _, u := range f.alertmanagers {
		cfg.Alerting.Alertmanagers = append(cfg.Alerting.Alertmanagers, config.EndpointConfig{URL: u})
	}
	if problems := cfg.Validate(); len(problems) > 0 {
		return usageErr("%v", problems)
	}
	out := cmd.OutOrStdout()
	cluster := demo.NewCluster(demo.InitialCluster())
	start := time.Now()
	p, err := newPipeline(cfg, cluster, nil, log, newRegistry(), &demo.Printer{Out: out, Start: start})
	if err != nil {
		return runtimeErr(err)
	}
	fmt.Fprintf(out, "routewarden demo: the incident of cilium/cilium#18852, replayed on 127.0.0.1\n"+
		"  collector  BGP 127.0.0.1:%d, AS 65000; it never advertises a route\n"+
		"  cluster    4 nodes in memory, IPAM cluster-pool 10.244.0.0/16\n"+
		"  HTTP       http://%s/ (%s)  /api/v1/findings  /api/v1/routes  /api/v1/peers  /metrics\n",
		port, p.http.Addr(), page)
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	eg, ctx := errgroup.WithContext(ctx)
	eg.Go(func() error { return p.run(ctx) })
	eg.Go(func() error {
		script := &demo.Script{Out: out, Cluster: cluster, CollectorPort: int32(port), CollectorASN: 65000,
			Pause: f.pause, Log: log, Settled: func(routes int, want bool) bool {
				st := p.loop.State()
				if held, _ := p.collector.Store().Routes(); len(held) != routes || st.Summary.Routes != routes {
					return false
				}
				for _, t := range st.Findings {
					if !t.Firing {
						return false
					}
				}
				return !st.WarmingUp && (len(st.Findings) > 0) == want
			}}
		script.Convergence = demo.ConvergenceLine(p.loop.Convergence)
		if f.keep {
			script.Hold = func(ctx context.Context) {
				fmt.Fprintf(out, "Still running: the speakers keep announcing the healthy routes and "+
					"http://%s/ shows them; Ctrl-C ends the demo.\n", p.http.Addr())
				<-ctx.Done()
			}
		}
		if err := script.Run(ctx); err != nil {
			return err
		}
		cancel()
		return nil
	})
	if err := eg.Wait(); err != nil && ctx.Err() == nil {
		return runtimeErr(err)
	}
	return nil
}

// free reports whether addr can be listened on now.
func free(addr string) bool {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// freeTCPPort asks the kernel for a free port on 127.0.0.1.
func freeTCPPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
