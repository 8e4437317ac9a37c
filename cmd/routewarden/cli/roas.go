package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/routewarden/routewarden/cilium"
	"github.com/routewarden/routewarden/config"
	"github.com/routewarden/routewarden/validator"
	"github.com/routewarden/routewarden/validator/roa"
)

// roasFormats are roas' -o values.
var roasFormats = []string{"json", "slurm"}

type roasFlags struct {
	cluster              []string
	ipamMode, configFile string
	output               string
}

func newROAsCmd(g *globalFlags) *cobra.Command {
	f := &roasFlags{}
	cmd := &cobra.Command{
		Use:   "roas --cluster FILE…",
		Short: "Print the ROAs the RTR server would serve for a cluster snapshot",
		Long: `roas reads the cluster (kubectl output, as check takes it: Nodes, CiliumNodes, pools, cilium-config,
Services, EndpointSlices and Cilium's BGP objects, CiliumBGPClusterConfigs and CiliumBGPNodeConfigOverrides for
the nodes' ASNs) and prints the ROA set routewarden run serves over RPKI-RTR when rtr.enabled is set:

  each allocated pod CIDR    exact length, the AS of its node
  each announced LB IP       /32 or /128, the AS of every node that may announce it
  every pool and range       AS0 up to /32 or /128: anything unallocated inside validates Invalid

The pod ranges come from the cilium-config ConfigMap (cluster-pool), the CiliumPodIPPools (multi-pool) or
cluster.podRanges: without them there is no AS0 ROA over the pod ranges, which stderr notes.

-o slurm writes an RFC 8416 SLURM file (locally added assertions) for an RPKI relying party.

Exit status: 0 the set is complete; 1 the set is printed, but some allocations have no ROA because their node
has no known AS (stderr names them; their pools get no AS0 ROA, as routewarden run serves them); 2 bad usage or
input; 3 the output could not be written.`,
		Example: `  kubectl get nodes,ciliumnodes,ciliumpodippools,ciliumloadbalancerippools,ciliumbgpclusterconfigs,ciliumbgpnodeconfigoverrides -o json > cluster.json
  kubectl get -n kube-system configmap cilium-config -o yaml > cilium-config.yaml
  kubectl get services,endpointslices,ciliumbgpadvertisements -A -o json > services.json
  routewarden roas --cluster cluster.json --cluster cilium-config.yaml --cluster services.json -o slurm > routewarden.slurm`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runROAs(cmd, g, f) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.cluster, "cluster", nil, "kubectl -o json/yaml output (repeatable; - for stdin)")
	fl.StringVar(&f.ipamMode, "ipam-mode", "", "Cilium IPAM mode, overriding cilium-config")
	fl.StringVar(&f.configFile, "config", "", "routewarden config file (cluster ranges, rtr.nodeASN)")
	fl.StringVarP(&f.output, "output", "o", "json", "output: "+strings.Join(roasFormats, ", "))
	return cmd
}

func runROAs(cmd *cobra.Command, g *globalFlags, f *roasFlags) error {
	var errs []error
	g.validateLogFlags(&errs)
	if err := choice("-o", f.output, roasFormats); err != nil {
		errs = append(errs, err)
	}
	validateIPAMMode(&errs, f.ipamMode)
	if len(f.cluster) == 0 {
		errs = append(errs, errors.New("roas needs at least one --cluster file (see --help)"))
	}
	if err := usageErrs(errs); err != nil {
		return err
	}
	log, err := g.oneShotLogger(cmd)
	if err != nil {
		return err
	}
	cfg, _, cluster, err := readCluster(f.configFile, f.cluster, f.ipamMode)
	if err != nil {
		return err
	}
	set := roa.Derive(cluster, roaOptions(cfg))
	if len(cluster.IPAM.PodRanges) == 0 {
		log.Warn().Msg("the pod ranges are unknown, so no AS0 ROA covers them (an unallocated pod CIDR validates " +
			"NotFound, not Invalid): add the cilium-config ConfigMap (cluster-pool) or the CiliumPodIPPools " +
			"(multi-pool) to --cluster, or set cluster.podRanges")
	}
	for _, u := range set.Unresolved {
		log.Warn().Str("allocation", u).Msg("no ROA (set rtr.nodeASN or the node's localASN)")
	}
	for _, p := range set.OpenPools {
		log.Warn().Stringer("pool", p).Msg("no AS0 ROA: the pool holds an allocation without a ROA (it fails open)")
	}
	write := roa.WriteJSON
	if f.output == "slurm" {
		write = roa.WriteSLURM
	}
	if err := write(cmd.OutOrStdout(), set); err != nil {
		return runtimeErr(fmt.Errorf("writing the ROAs: %w", err))
	}
	if len(set.Unresolved) > 0 {
		return &exitError{code: ExitFindings}
	}
	return nil
}

// roaOptions are what the config adds to the cluster's objects.
func roaOptions(cfg *config.Config) roa.Options {
	return roa.Options{AllowedRanges: cfg.ValidatorOptions().AllowedRanges, DefaultASN: cfg.RTR.NodeASN}
}

// readCluster loads the config file (none when empty) and the cluster files
// (kubectl output) as check and roas take them; every error is a usage error.
func readCluster(configFile string, files []string, ipamMode string) (*config.Config, *cilium.Objects, *validator.Cluster, error) {
	cfg, problems, err := config.Load(configFile)
	if err != nil {
		return nil, nil, nil, usageErr("%v", err)
	}
	if len(problems) > 0 {
		return nil, nil, nil, usageErr("%v", problems)
	}
	objs, err := cilium.ReadFiles(files)
	if err != nil {
		return nil, nil, nil, usageErr("%v", err)
	}
	cluster, err := objs.Cluster(clusterOptions(cfg, ipamMode))
	if err != nil {
		return nil, nil, nil, usageErr("%v", err)
	}
	return cfg, objs, cluster, nil
}
