package cilium

import (
	"net/netip"
	"slices"
	"time"
)

// BGPFamily is a CiliumBGPPeerConfig or PeeringPolicy address family.
type BGPFamily struct {
	AFI            string         `yaml:"afi"`
	SAFI           string         `yaml:"safi"`
	Advertisements *LabelSelector `yaml:"advertisements"`
}

// BGPGracefulRestart is Cilium's gracefulRestart block.
type BGPGracefulRestart struct {
	Enabled            bool `yaml:"enabled"`
	RestartTimeSeconds *int `yaml:"restartTimeSeconds"`
}

// On reports whether graceful restart is enabled (nil: not).
func (gr *BGPGracefulRestart) On() bool { return gr != nil && gr.Enabled }

// RestartTime is the restart time, Cilium's default of 120 s when unset.
func (gr *BGPGracefulRestart) RestartTime() time.Duration {
	secs := 120
	if gr != nil && gr.RestartTimeSeconds != nil {
		secs = *gr.RestartTimeSeconds
	}
	return time.Duration(secs) * time.Second
}

// BGPClusterConfig is a CiliumBGPClusterConfig (cilium.io/v2 or v2alpha1).
type BGPClusterConfig struct {
	TypeMeta `yaml:",inline"`
	Metadata Meta `yaml:"metadata"`
	Spec     struct {
		NodeSelector *LabelSelector `yaml:"nodeSelector"`
		BGPInstances []BGPInstance  `yaml:"bgpInstances"`
	} `yaml:"spec"`
}

// BGPInstance is one of a CiliumBGPClusterConfig's bgpInstances.
type BGPInstance struct {
	Name     string    `yaml:"name"`
	LocalASN uint32    `yaml:"localASN"`
	Peers    []BGPPeer `yaml:"peers"`
}

// BGPPeer is a bgpInstances[].peers entry.
type BGPPeer struct {
	Name          string `yaml:"name"`
	PeerAddress   *IP    `yaml:"peerAddress"`
	PeerASN       uint32 `yaml:"peerASN"`
	PeerConfigRef *struct {
		Name string `yaml:"name"`
	} `yaml:"peerConfigRef"`
}

// Address is the peer's address; the zero Addr when it has none.
func (p BGPPeer) Address() netip.Addr {
	if p.PeerAddress == nil {
		return netip.Addr{}
	}
	return p.PeerAddress.Addr
}

// PeerConfig names the CiliumBGPPeerConfig the peer refers to; "" when none.
func (p BGPPeer) PeerConfig() string {
	if p.PeerConfigRef == nil {
		return ""
	}
	return p.PeerConfigRef.Name
}

// BGPPeerConfig is a CiliumBGPPeerConfig.
type BGPPeerConfig struct {
	Metadata Meta `yaml:"metadata"`
	Spec     struct {
		Families        []BGPFamily         `yaml:"families"`
		GracefulRestart *BGPGracefulRestart `yaml:"gracefulRestart"`
	} `yaml:"spec"`
}

// BGPAdvertisement is a CiliumBGPAdvertisement.
type BGPAdvertisement struct {
	Metadata Meta `yaml:"metadata"`
	Spec     struct {
		Advertisements []BGPAdvertisementEntry `yaml:"advertisements"`
	} `yaml:"spec"`
}

// Types are the advertisementTypes of its advertisements, in their order.
func (a BGPAdvertisement) Types() []string {
	out := make([]string, 0, len(a.Spec.Advertisements))
	for _, e := range a.Spec.Advertisements {
		out = append(out, e.AdvertisementType)
	}
	return out
}

// BGPAdvertisementEntry is one of a CiliumBGPAdvertisement's advertisements[].
type BGPAdvertisementEntry struct {
	AdvertisementType string `yaml:"advertisementType"`
	// Selector selects the Services of a Service advertisement; nil selects none.
	Selector *LabelSelector `yaml:"selector"`
	Service  *struct {
		Addresses []string `yaml:"addresses"`
	} `yaml:"service"`
	// Attributes are the path attributes Cilium attaches (bgp_attributes.go).
	Attributes *BGPAttributes `yaml:"attributes"`
}

// LoadBalancerIP reports whether its service.addresses include LoadBalancerIP.
func (e BGPAdvertisementEntry) LoadBalancerIP() bool {
	return e.Service != nil && slices.Contains(e.Service.Addresses, "LoadBalancerIP")
}

// AttributesText describes its attributes in one normalized text
// (communities sorted, well-known ones by value); "" when it sets none, or
// none that can be read (Objects.Cluster reports those).
func (e BGPAdvertisementEntry) AttributesText() string {
	v, _ := e.Attributes.values()
	return v.String()
}

// BGPPeeringPolicy is a cilium.io/v2alpha1 CiliumBGPPeeringPolicy (BGP control plane v1).
type BGPPeeringPolicy struct {
	Metadata Meta `yaml:"metadata"`
	Spec     struct {
		NodeSelector   *LabelSelector     `yaml:"nodeSelector"`
		VirtualRouters []BGPVirtualRouter `yaml:"virtualRouters"`
	} `yaml:"spec"`
}

// BGPVirtualRouter is one of a CiliumBGPPeeringPolicy's virtualRouters.
type BGPVirtualRouter struct {
	LocalASN          uint32         `yaml:"localASN"`
	ExportPodCIDR     bool           `yaml:"exportPodCIDR"`
	PodIPPoolSelector *LabelSelector `yaml:"podIPPoolSelector"`
	// ServiceSelector selects the Services whose addresses are announced; nil selects none.
	ServiceSelector       *LabelSelector `yaml:"serviceSelector"`
	ServiceAdvertisements []string       `yaml:"serviceAdvertisements"`
	Neighbors             []BGPNeighbor  `yaml:"neighbors"`
}

// BGPNeighbor is a virtual router's neighbor.
type BGPNeighbor struct {
	PeerAddress     CIDR                `yaml:"peerAddress"`
	PeerASN         uint32              `yaml:"peerASN"`
	Families        []BGPFamily         `yaml:"families"`
	GracefulRestart *BGPGracefulRestart `yaml:"gracefulRestart"`
}
