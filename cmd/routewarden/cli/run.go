package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/httpapi"
	"github.com/routewarden/routewarden/kube"
)

type runFlags struct {
	configFile, kubeconfig, kubeContext string
}

func newRunCmd(g *globalFlags, reload <-chan struct{}) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run --config FILE",
		Short: "Run the collector: a passive BGP peer that checks every route against the cluster, live",
		Long: `run starts routewarden as a service: a passive BGP peer (it never advertises a route) that receives the
routes Cilium nodes announce, watches Nodes, CiliumNodes, CiliumPodIPPools, LoadBalancer Services, EndpointSlices, Cilium's BGP objects and
cilium-config (read-only), and
re-validates on every change. Findings that persist for validation.holdDown fire as Alertmanager alerts and
resolve when the routes and the cluster agree again.

HTTP (http.listen, default :9479):
` + httpPathsHelp() + `
BMP (bgp.bmp.listen, off by default): a BMP station for ToR routers and Cilium nodes (RFC 7854).

Every configuration problem is reported before anything starts (exit 2), the same ones validate-config
reports; a failure while running (the Kubernetes API refusing, unreachable, untrusted or forbidding, a port
in use) is exit 3 with its cause named. On SIGHUP, or when the file's
content changes, the config is re-read: rules, ranges, scope, hold-down, neighbors and dynamic ranges apply
live (unaffected BGP sessions stay up); an invalid file is refused and the running config stays.`,
		Example: `  routewarden run --config /etc/routewarden/routewarden.yaml
  routewarden run --config routewarden.yaml --kubeconfig ~/.kube/config --context prod-eu1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := g.logger(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			cfg, problems, err := config.Load(f.configFile, config.ForRun)
			if err != nil {
				return usageErr("%v", err)
			}
			if len(problems) > 0 && f.configFile == "" {
				return usageErr("run was given no --config, so only the defaults and ROUTEWARDEN_* variables were read; "+
					"they leave %v", problems)
			}
			if len(problems) > 0 {
				return usageErr("%v", problems)
			}
			if _, err := bgpConfig(cfg.BGP); err != nil {
				return usageErr("%v", err)
			}
			conn := kube.Connection{Kubeconfig: cfg.Kubernetes.Kubeconfig, Context: cfg.Kubernetes.Context}
			if f.kubeconfig != "" {
				conn.Kubeconfig = f.kubeconfig
			}
			if f.kubeContext != "" {
				conn.Context = f.kubeContext
			}
			reg := newRegistry()
			inv, err := kube.Connect(conn, kube.InventoryOptions{Cluster: clusterOptions(cfg, ""),
				TombstoneTTL: cfg.Kubernetes.TombstoneTTL}, log, reg)
			if err != nil {
				return usageErr("%v", err)
			}
			p, err := newPipeline(cfg, inv, nil, log, reg)
			if err != nil {
				return runtimeErr(err)
			}
			if f.configFile != "" {
				p.reloader = &reloader{path: f.configFile, current: cfg, p: p, log: log, signals: reload,
					poll: 2 * time.Second}
			}
			// SIGTERM or an interrupt ends cmd.Context(): say so, and when it is done.
			stopping := context.AfterFunc(cmd.Context(), func() {
				log.Info().Msg("stopping: closing the BGP sessions, the API and the watches (firing alerts are not resolved)")
			})
			if err := p.run(cmd.Context()); err != nil {
				stopping()
				return runtimeErr(err)
			}
			if !stopping() {
				log.Info().Msg("stopped")
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.configFile, "config", "", "routewarden config file (docs/configuration.md); ROUTEWARDEN_* variables override it")
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: in-cluster, else $KUBECONFIG or ~/.kube/config)")
	fl.StringVar(&f.kubeContext, "context", "", "kubeconfig context")
	return cmd
}

// httpPathsHelp lists every HTTP path for run --help, one a line.
func httpPathsHelp() string {
	var b strings.Builder
	for _, p := range httpapi.Paths() {
		fmt.Fprintf(&b, "  %-22s %s\n", p.Path, p.What)
	}
	return b.String()
}
