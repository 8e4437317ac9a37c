package main

import (
	"context"
	"log/slog"

	"github.com/cilium/hive/cell"

	operatorbgp "github.com/cilium/cilium/operator/pkg/bgp"
	"github.com/cilium/cilium/pkg/hive"
	v2 "github.com/cilium/cilium/pkg/k8s/apis/cilium.io/v2"
	k8sClient "github.com/cilium/cilium/pkg/k8s/client"
	"github.com/cilium/cilium/pkg/k8s/resource"
	"github.com/cilium/cilium/pkg/k8s/utils"
	"github.com/cilium/cilium/pkg/metrics"
	"github.com/cilium/cilium/pkg/option"
)

// runOperator runs the operator's BGP control plane (operator/pkg/bgp): from the
// CiliumBGPClusterConfigs, node overrides and CiliumNodes it writes each node's
// CiliumBGPNodeConfig, which the agents read, as in a cluster.
func runOperator(ctx context.Context, log *slog.Logger, kubeconfig string) error {
	h := hive.New(
		metrics.Cell,
		k8sClient.Cell,
		cell.Provide(
			func(lc cell.Lifecycle, c k8sClient.Clientset) resource.Resource[*v2.CiliumBGPClusterConfig] {
				return resource.New[*v2.CiliumBGPClusterConfig](lc, utils.ListerWatcherFromTyped[*v2.CiliumBGPClusterConfigList](c.CiliumV2().CiliumBGPClusterConfigs()), nil)
			},
			func(lc cell.Lifecycle, c k8sClient.Clientset) resource.Resource[*v2.CiliumBGPNodeConfig] {
				return resource.New[*v2.CiliumBGPNodeConfig](lc, utils.ListerWatcherFromTyped[*v2.CiliumBGPNodeConfigList](c.CiliumV2().CiliumBGPNodeConfigs()), nil)
			},
			func(lc cell.Lifecycle, c k8sClient.Clientset) resource.Resource[*v2.CiliumBGPNodeConfigOverride] {
				return resource.New[*v2.CiliumBGPNodeConfigOverride](lc, utils.ListerWatcherFromTyped[*v2.CiliumBGPNodeConfigOverrideList](c.CiliumV2().CiliumBGPNodeConfigOverrides()), nil)
			},
			func(lc cell.Lifecycle, c k8sClient.Clientset) resource.Resource[*v2.CiliumBGPPeerConfig] {
				return resource.New[*v2.CiliumBGPPeerConfig](lc, utils.ListerWatcherFromTyped[*v2.CiliumBGPPeerConfigList](c.CiliumV2().CiliumBGPPeerConfigs()), nil)
			},
			func(lc cell.Lifecycle, c k8sClient.Clientset) resource.Resource[*v2.CiliumNode] {
				return resource.New[*v2.CiliumNode](lc, utils.ListerWatcherFromTyped[*v2.CiliumNodeList](c.CiliumV2().CiliumNodes()), nil)
			},
			func(lc cell.Lifecycle, c k8sClient.Clientset) resource.Resource[*v2.CiliumBGPAdvertisement] {
				return resource.New[*v2.CiliumBGPAdvertisement](lc, utils.ListerWatcherFromTyped[*v2.CiliumBGPAdvertisementList](c.CiliumV2().CiliumBGPAdvertisements()), nil)
			},
			func() *option.DaemonConfig {
				return &option.DaemonConfig{EnableBGPControlPlane: true, BGPSecretsNamespace: "kube-system"}
			},
		),
		operatorbgp.Cell,
	)
	hive.AddConfigOverride(h, func(c *k8sClient.SharedConfig) { c.K8sKubeConfigPath = kubeconfig })
	return runHive(ctx, log, h)
}
