package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/routewarden/routewarden/bgp/dump"
	"github.com/routewarden/routewarden/validator"
	"github.com/routewarden/routewarden/validator/report"
)

type checkFlags struct {
	cluster, routes                    []string
	routesFormat, ipamMode, configFile string
	reportFlags
}

func newCheckCmd(g *globalFlags) *cobra.Command {
	f := &checkFlags{}
	cmd := &cobra.Command{
		Use:   "check --cluster FILE… --routes FILE…",
		Short: "Audit a route dump against a cluster snapshot, once",
		Long: `check reads the cluster (kubectl get -o json or -o yaml output: Nodes, CiliumNodes, CiliumPodIPPools,
CiliumLoadBalancerIPPools and the kube-system/cilium-config ConfigMap; for the VIP rules also Services,
EndpointSlices and Cilium's BGP objects; a List, single objects or several YAML documents; several files are
merged) and route dumps from a router, and reports every route that does not
match the cluster.

Route formats (detected from the content with --routes-format auto):
  gobgp  gobgp global rib [-a ipv6] -j, gobgp neighbor ADDR adj-in -j
  frr    vtysh -c 'show bgp ipv4 unicast json' (or ipv6)
  bird   birdc show route all
  mrt    MRT TABLE_DUMP_V2 files (RFC 6396) from gobgpd, BIRD, FRR or route collectors

Rules: stale-route, foreign-cidr, unallocated-cidr, out-of-range, missing-route, podcidr-drift,
duplicate-origin, and, when Services are given, stale-vip, missing-vip, vip-without-endpoints, vip-wrong-node. A route belongs to the node owning its next hop (else its peer address, else its router ID).`,
		Example: `  kubectl get nodes,ciliumnodes,ciliumpodippools,ciliumloadbalancerippools -o json > cluster.json
  kubectl -n kube-system get configmap cilium-config -o yaml > cilium-config.yaml
  kubectl get services,endpointslices,ciliumbgpadvertisements -A -o json > services.json   # VIP rules
  vtysh -c 'show bgp ipv4 unicast json' > routes.json
  routewarden check --cluster cluster.json --cluster cilium-config.yaml --routes routes.json

  # JSON for scripts, fail only on critical findings
  routewarden check --cluster cluster.json --routes rib.mrt -o json --fail-on critical`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCheck(cmd, g, f) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.cluster, "cluster", nil, "kubectl -o json/yaml output (repeatable; - for stdin)")
	fl.StringArrayVar(&f.routes, "routes", nil, "route dump (repeatable)")
	fl.StringVar(&f.routesFormat, "routes-format", "auto", "route dump format: auto, gobgp, frr, bird, mrt")
	fl.StringVar(&f.ipamMode, "ipam-mode", "", "Cilium IPAM mode, overriding cilium-config (cluster-pool, kubernetes, multi-pool, eni, …)")
	fl.StringVar(&f.configFile, "config", "", "routewarden config file (rules, ranges)")
	fl.StringVarP(&f.output, "output", "o", "table", "output: table or json")
	fl.StringVar(&f.failOn, "fail-on", "warning", "exit 1 when a finding is at least: info, warning, critical")
	return cmd
}

func runCheck(cmd *cobra.Command, g *globalFlags, f *checkFlags) error {
	log, err := g.logger(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	failOn, err := f.reportFlags.parse("table", "json")
	if err != nil {
		return err
	}
	if len(f.cluster) == 0 || len(f.routes) == 0 {
		return usageErr("check needs at least one --cluster and one --routes file (see --help)")
	}
	cfg, objs, cluster, err := readCluster(f.configFile, f.cluster, f.ipamMode)
	if err != nil {
		return err
	}
	if len(objs.Ignored) > 0 {
		log.Info().Str("kinds", objs.IgnoredSummary()).Msg("ignored objects of kinds routewarden does not read")
	}
	if cluster.IPAM.ModeSource == "default" {
		log.Warn().Msg("no cilium-config ConfigMap and no --ipam-mode: assuming Cilium's default IPAM, cluster-pool")
	}
	var routes []validator.Route
	for _, path := range f.routes {
		start := time.Now()
		rs, format, err := dump.ReadFile(path, f.routesFormat)
		if err != nil {
			return usageErr("%v", err)
		}
		log.Info().Str("file", path).Str("format", format).Int("routes", len(rs)).
			Stringer("took", time.Since(start).Round(time.Millisecond)).Msg("read routes")
		routes = append(routes, rs...)
	}
	opts := cfg.ValidatorOptions()
	opts.Now = time.Now()
	res := validator.Validate(cluster, routes, opts)
	if f.output == "json" {
		err = report.JSON(cmd.OutOrStdout(), res)
	} else {
		err = report.Table(cmd.OutOrStdout(), res)
	}
	if err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if validator.Worst(res.Findings) >= failOn {
		return &exitError{code: exitFindings}
	}
	return nil
}
