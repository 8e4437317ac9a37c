package kube

import (
	"strings"

	"github.com/rs/zerolog"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// Resources the VIP rules read: Services and their EndpointSlices (always
// served), and Cilium's BGP objects that say which Services are announced.
var (
	gvrServices       = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	gvrEndpointSlices = schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
	// The BGP control plane's CRDs, newest version first: one version of each is watched.
	bgpAdvertVersions = []schema.GroupVersionResource{
		{Group: "cilium.io", Version: "v2", Resource: "ciliumbgpadvertisements"},
		{Group: "cilium.io", Version: "v2alpha1", Resource: "ciliumbgpadvertisements"},
	}
	bgpPeerCfgVersions = []schema.GroupVersionResource{
		{Group: "cilium.io", Version: "v2", Resource: "ciliumbgppeerconfigs"},
		{Group: "cilium.io", Version: "v2alpha1", Resource: "ciliumbgppeerconfigs"},
	}
	bgpPeeringPolVersions = []schema.GroupVersionResource{
		{Group: "cilium.io", Version: "v2alpha1", Resource: "ciliumbgppeeringpolicies"},
	}
	// The nodes' local ASNs (node_asn.go), which the RTR server's ROAs carry.
	bgpClusterCfgVersions = []schema.GroupVersionResource{
		{Group: "cilium.io", Version: "v2", Resource: "ciliumbgpclusterconfigs"},
		{Group: "cilium.io", Version: "v2alpha1", Resource: "ciliumbgpclusterconfigs"},
	}
	bgpNodeOverrideVersions = []schema.GroupVersionResource{
		{Group: "cilium.io", Version: "v2", Resource: "ciliumbgpnodeconfigoverrides"},
		{Group: "cilium.io", Version: "v2alpha1", Resource: "ciliumbgpnodeconfigoverrides"},
	}
)

// vipResources returns the Services, EndpointSlices and whichever of the BGP
// CRDs the API server serves. A missing BGP CRD is no degradation: a cluster
// runs one BGP control plane version (v1 policies were removed in Cilium 1.19),
// and without any, no Service's VIP is expected to be announced.
func (i *Inventory) vipResources() ([]schema.GroupVersionResource, error) {
	gvrs := []schema.GroupVersionResource{gvrServices, gvrEndpointSlices}
	for _, versions := range [][]schema.GroupVersionResource{bgpAdvertVersions, bgpPeerCfgVersions, bgpPeeringPolVersions,
		bgpClusterCfgVersions, bgpNodeOverrideVersions} {
		gvr, ok, err := i.newestServed(versions)
		if err != nil {
			return nil, err
		}
		if ok {
			gvrs = append(gvrs, gvr)
		}
	}
	i.mu.Lock()
	i.vipGVRs = gvrs
	i.mu.Unlock()
	i.log.Debug().Interface("resources", gvrs).Msg("watching Services and BGP objects for the VIP rules")
	return gvrs, nil
}

// clusterResourcesLocked are the resources Cluster translates, VIP ones included.
func (i *Inventory) clusterResourcesLocked() []schema.GroupVersionResource {
	gvrs := append([]schema.GroupVersionResource{gvrNodes, gvrCiliumNodes, gvrConfigMaps}, i.poolGVRs...)
	return append(gvrs, i.vipGVRs...)
}

// withWarningLog sends the API server's warnings (such as the deprecation of
// CiliumBGPPeeringPolicy, which the VIP rules watch) to the log, each distinct
// one once, instead of klog's standard error on every list and watch.
func withWarningLog(cfg *rest.Config, log zerolog.Logger) *rest.Config {
	if cfg.WarningHandler != nil || cfg.WarningHandlerWithContext != nil {
		return cfg
	}
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = rest.NewWarningWriter(warningLog{log}, rest.WarningWriterOptions{Deduplicate: true})
	return cfg
}

type warningLog struct{ log zerolog.Logger }

func (w warningLog) Write(p []byte) (int, error) {
	w.log.Warn().Str("component", "kube").Msg("Kubernetes API: " + strings.TrimSpace(string(p)))
	return len(p), nil
}
