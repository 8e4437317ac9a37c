package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/cilium/hive/cell"
	"github.com/cilium/statedb"

	daemonk8s "github.com/cilium/cilium/daemon/k8s"
	"github.com/cilium/cilium/pkg/bgp"
	"github.com/cilium/cilium/pkg/bgp/agent"
	"github.com/cilium/cilium/pkg/bgp/manager"
	"github.com/cilium/cilium/pkg/datapath/tables"
	envoyCfg "github.com/cilium/cilium/pkg/envoy/config"
	"github.com/cilium/cilium/pkg/hive"
	k8sClient "github.com/cilium/cilium/pkg/k8s/client"
	"github.com/cilium/cilium/pkg/kpr"
	"github.com/cilium/cilium/pkg/lbipamconfig"
	"github.com/cilium/cilium/pkg/loadbalancer"
	"github.com/cilium/cilium/pkg/loadbalancer/reflectors"
	"github.com/cilium/cilium/pkg/loadbalancer/writer"
	"github.com/cilium/cilium/pkg/metrics"
	"github.com/cilium/cilium/pkg/node"
	"github.com/cilium/cilium/pkg/node/types"
	"github.com/cilium/cilium/pkg/nodeipamconfig"
	"github.com/cilium/cilium/pkg/option"
	"github.com/cilium/cilium/pkg/source"
	"github.com/cilium/cilium/pkg/svcrouteconfig"
)

// runAgent runs one node's BGP control plane as Cilium's own BGP test (pkg/bgp/test/script_test.go)
// builds it, with the real Kubernetes client in place of the fake one: the agent reads its
// CiliumNode, CiliumBGPNodeConfig, peer configs, advertisements, Services and EndpointSlices from
// the API server, and its GoBGP instance peers as the node config says.
func runAgent(ctx context.Context, log *slog.Logger, kubeconfig, nodeName, ipam string) error {
	types.SetName(nodeName)
	h := hive.New(
		metrics.Cell,
		bgp.Cell,
		svcrouteconfig.Cell,
		cell.Provide(
			tables.NewRouteTable,
			tables.NewDeviceTable,
			tables.NewNodeAddressTable,
			statedb.RWTable[*tables.Route].ToTable,
			statedb.RWTable[*tables.Device].ToTable,
			statedb.RWTable[tables.NodeAddress].ToTable,
		),
		k8sClient.Cell,
		daemonk8s.ResourcesCell,
		k8sTablesCell, // where the release keeps it
		node.LocalNodeStoreTestCell,
		cell.Config(envoyCfg.SecretSyncConfig{}),
		loadbalancer.ConfigCell,
		writer.Cell,
		reflectors.Cell,
		lbipamconfig.Cell,
		nodeipamconfig.Cell,
		cell.Provide(func() source.Sources { return source.Sources{} }),
		cell.Provide(
			func() *option.DaemonConfig {
				option.Config = &option.DaemonConfig{
					EnableBGPControlPlane:     true,
					BGPSecretsNamespace:       "kube-system",
					BGPRouterIDAllocationMode: option.BGPRouterIDAllocationModeDefault,
					IPAM:                      ipam,
					EnableIPv4:                true,
					EnableIPv6:                true,
				}
				return option.Config
			},
			func() kpr.KPRConfig { return kpr.KPRConfig{KubeProxyReplacement: true} },
		),
		cell.Invoke(func(m agent.BGPRouterManager) {
			m.(*manager.BGPRouterManager).DestroyRouterOnStop(true)
		}),
	)
	hive.AddConfigOverride(h, func(c *k8sClient.SharedConfig) { c.K8sKubeConfigPath = kubeconfig })
	return runHive(ctx, log, h)
}

// runHive starts the hive, waits for ctx and stops it.
func runHive(ctx context.Context, log *slog.Logger, h *hive.Hive) error {
	if err := h.Start(log, ctx); err != nil {
		return fmt.Errorf("starting the hive: %w", err)
	}
	log.Info("ciliumbgp started")
	<-ctx.Done()
	if err := h.Stop(log, context.Background()); err != nil {
		return fmt.Errorf("stopping the hive: %w", err)
	}
	return nil
}
