package cli

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routewarden/routewarden/cilium"
	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/validator"
	"github.com/routewarden/routewarden/validator/lint"
)

type validateFlags struct {
	configFile, ipamMode string
	reportFlags
}

func newValidateConfigCmd(g *globalFlags) *cobra.Command {
	f := &validateFlags{}
	cmd := &cobra.Command{
		Use:   "validate-config [--config FILE] [CILIUM-OBJECTS…]",
		Short: "Check routewarden's config and Cilium's BGP objects before they bite",
		Long: `validate-config checks routewarden's own config file (every problem at once, with file, line and key,
or the ROUTEWARDEN_* variable that set it) with the validation run applies, so a file it passes is one run
starts with, and, given Cilium objects (kubectl -o yaml/json output or manifests), cross-checks them with it:

  - routewarden (bgp.peerAddress, bgp.asn) is a peer of every BGP instance, with a matching ASN
    (CiliumBGPClusterConfig v2/v2alpha1, CiliumBGPPeeringPolicy v2alpha1, legacy kube-system/bgp-config);
  - pod-CIDR advertisements are enabled and fit the IPAM mode (exportPodCIDR, PodCIDR or CiliumPodIPPool
    advertisements selected by the peer config's families; multi-pool needs CiliumPodIPPool; ENI has none);
  - the legacy speaker is not used with cluster-pool IPAM (cilium/cilium#18852), and its address pools do
    not overlap the pod ranges;
  - node selectors select at least one of the given Nodes;
  - graceful-restart times fit routewarden's grace window.`,
		Example: `  routewarden validate-config --config routewarden.yaml
  kubectl get ciliumbgpclusterconfigs,ciliumbgppeerconfigs,ciliumbgpadvertisements,nodes -o yaml > bgp.yaml
  kubectl -n kube-system get configmap cilium-config -o yaml > cilium-config.yaml
  routewarden validate-config --config routewarden.yaml bgp.yaml cilium-config.yaml`,
		RunE: func(cmd *cobra.Command, args []string) error { return runValidateConfig(cmd, g, f, args) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.configFile, "config", "", "routewarden config file")
	fl.StringVar(&f.ipamMode, "ipam-mode", "", "Cilium IPAM mode, overriding cilium-config: "+
		strings.Join(config.IPAMModes, ", "))
	fl.StringVarP(&f.output, "output", "o", "table", "output: table, json, yaml")
	fl.StringVar(&f.failOn, "fail-on", "warning", "exit 1 when a problem is at least: info, warning, critical, never")
	return cmd
}

func runValidateConfig(cmd *cobra.Command, g *globalFlags, f *validateFlags, args []string) error {
	var errs []error
	g.validateLogFlags(&errs)
	thr := f.reportFlags.parse(&errs, "table", "json", "yaml")
	validateIPAMMode(&errs, f.ipamMode)
	if f.configFile == "" && len(args) == 0 {
		errs = append(errs, errors.New("nothing to validate: give --config and/or Cilium object files (see --help)"))
	}
	if err := usageErrs(errs); err != nil {
		return err
	}
	if _, err := g.oneShotLogger(cmd); err != nil {
		return err
	}
	// The config file is run's: it is held to what run needs, with the same validation.
	purpose := config.ForCheck
	if f.configFile != "" {
		purpose = config.ForRun
	}
	cfg, cfgProblems, err := config.Load(f.configFile, purpose)
	if err != nil {
		return usageErr("%v", err)
	}
	var problems []lint.Problem
	for _, p := range cfgProblems {
		problems = append(problems, lint.Problem{Severity: validator.SeverityCritical, Where: p.Where(), Field: p.Key,
			Message: p.Message})
	}
	if cfg != nil && len(args) > 0 {
		ps, err := crossCheck(cfg, f, args)
		if err != nil {
			return usageErr("%v", err)
		}
		problems = append(problems, ps...)
	}
	if err := writeProblems(cmd.OutOrStdout(), f.output, problems); err != nil {
		return runtimeErr(fmt.Errorf("writing output: %w", err))
	}
	var worst validator.Severity
	for _, p := range problems {
		worst = max(worst, p.Severity)
	}
	if thr.trips(worst) {
		return &exitError{code: ExitFindings}
	}
	return nil
}

func crossCheck(cfg *config.Config, f *validateFlags, files []string) ([]lint.Problem, error) {
	objs, err := cilium.ReadLintFiles(files)
	if err != nil {
		return nil, err
	}
	var typed []lint.Problem // values that did not fit: the objects are checked without them
	for _, p := range objs.TypeProblems {
		typed = append(typed, lint.Problem{Severity: validator.SeverityCritical, Where: p.Pos.String(),
			Object: p.Object, Field: p.Field, Message: p.Message})
	}
	ipam, err := objs.IPAM(clusterOptions(cfg, f.ipamMode))
	if err != nil {
		return nil, err
	}
	in := lint.Input{IPAMMode: ipam.Mode, PodRanges: ipam.PodRanges, Collector: collectorOf(cfg, f.configFile)}
	if ipam.ModeSource == "default" {
		in.IPAMMode = "" // unknown: skip the checks that depend on it
	}
	in.Cilium = objs
	if in.Legacy, err = objs.LegacySpeaker(); err != nil {
		return nil, err
	}
	problems := lint.Check(in)
	for i, p := range problems {
		if pos, ok := objs.FieldPos(p.Object, p.Field); ok {
			problems[i].Where = pos.String()
		}
	}
	problems = append(problems, typed...)
	lint.Sort(problems)
	return problems, nil
}

func collectorOf(cfg *config.Config, file string) lint.Collector {
	c := lint.Collector{ASN: cfg.BGP.ASN, GraceWindow: cfg.BGP.GracefulRestart.Window,
		GracefulRestart: cfg.BGP.GracefulRestart.Enabled, Where: file}
	if c.Where == "" {
		c.Where = "(no --config)"
	}
	addrs := append([]string{cfg.BGP.PeerAddress}, cfg.BGP.ListenAddresses...)
	for _, s := range addrs {
		if a, err := netip.ParseAddr(s); err == nil && !a.IsUnspecified() {
			c.Addresses = append(c.Addresses, a)
		}
	}
	return c
}

func writeProblems(w io.Writer, format string, problems []lint.Problem) error {
	counts := map[string]int{}
	for _, p := range problems {
		counts[p.Severity.String()]++
	}
	if format != "table" {
		if problems == nil {
			problems = []lint.Problem{}
		}
		return writeStructured(w, format, map[string]any{"problems": problems, "summary": counts})
	}
	for _, p := range problems {
		if _, err := fmt.Fprintln(w, p); err != nil {
			return err
		}
	}
	if len(problems) == 0 {
		_, err := fmt.Fprintln(w, "OK: no problems found.")
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d problem(s): %d critical, %d warning, %d info.\n", len(problems),
		counts["critical"], counts["warning"], counts["info"])
	return err
}
