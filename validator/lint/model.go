// Package lint cross-checks routewarden's configuration with Cilium's BGP
// objects (BGP control plane v2 and v1, the legacy speaker) and IPAM settings,
// and reports every problem at once. It is pure like its parent: kube/ decodes
// the objects into this package's models.
package lint

import (
	"net/netip"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// Input is everything the checks look at.
type Input struct {
	Collector Collector
	IPAMMode  validator.IPAMMode
	PodRanges []netip.Prefix
	// Nodes, when given, let the checks tell whether selectors select anything.
	Nodes []NodeLabels

	ClusterConfigs  []ClusterConfig
	PeerConfigs     []PeerConfig
	Advertisements  []Advertisement
	PeeringPolicies []PeeringPolicy
	// Services, when given, let the checks tell which advertisements select one Service.
	Services []ServiceLabels
	Legacy   *LegacyConfig
	// LegacyAnnouncePodCIDR is cilium-config's bgp-announce-pod-cidr.
	LegacyAnnouncePodCIDR bool
	CiliumConfigWhere     string
}

// Collector is routewarden as the Cilium nodes should see it.
type Collector struct {
	Addresses []netip.Addr
	ASN       uint32
	// GraceWindow is how long routewarden keeps graceful-restart stale paths.
	GraceWindow     time.Duration
	GracefulRestart bool
	Where           string
}

// NodeLabels is a node's name and labels.
type NodeLabels struct {
	Name   string
	Labels map[string]string
}

// ClusterConfig is a CiliumBGPClusterConfig.
type ClusterConfig struct {
	Where, Name, APIVersion string
	NodeSelector            *Selector
	Instances               []Instance
}

// Instance is one of a ClusterConfig's bgpInstances.
type Instance struct {
	Name     string
	LocalASN uint32
	Peers    []Peer
}

// Peer is a bgpInstances[].peers entry.
type Peer struct {
	Name       string
	Address    netip.Addr
	ASN        uint32
	PeerConfig string
}

// PeerConfig is a CiliumBGPPeerConfig.
type PeerConfig struct {
	Where, Name     string
	Families        []Family
	GracefulRestart GracefulRestart
}

// Family is an address family and the advertisements it selects.
type Family struct {
	AFI, SAFI      string
	Advertisements *Selector
}

// GracefulRestart is a peer's graceful-restart setting.
type GracefulRestart struct {
	Enabled     bool
	RestartTime time.Duration
}

// Advertisement is a CiliumBGPAdvertisement.
type Advertisement struct {
	Where, Name string
	Labels      map[string]string
	Types       []string
	// Entries are its advertisements[], with what tells overlaps apart.
	Entries []AdvertisementEntry
}

// AdvertisementEntry is one of an Advertisement's advertisements[].
type AdvertisementEntry struct {
	Type string
	// Selector selects the Services of a Service advertisement; nil selects none.
	Selector       *Selector
	LoadBalancerIP bool // service.addresses has LoadBalancerIP
	// Attributes describe its attributes in one normalized text (communities
	// sorted, well-known ones by value); "" when it sets none.
	Attributes string
}

// ServiceLabels are a LoadBalancer Service's name ("namespace/name") and the
// labels Cilium's selectors match (its own and io.kubernetes.service.*).
type ServiceLabels struct {
	Name   string
	Labels map[string]string
}

// PeeringPolicy is a v2alpha1 CiliumBGPPeeringPolicy (BGP control plane v1).
type PeeringPolicy struct {
	Where, Name    string
	NodeSelector   *Selector
	VirtualRouters []VirtualRouter
}

// VirtualRouter is one of a PeeringPolicy's virtualRouters.
type VirtualRouter struct {
	LocalASN          uint32
	ExportPodCIDR     bool
	PodIPPoolSelector *Selector
	Neighbors         []Neighbor
}

// Neighbor is a virtual router's neighbor.
type Neighbor struct {
	Address         netip.Prefix
	ASN             uint32
	Families        []Family
	GracefulRestart GracefulRestart
}

// LegacyConfig is the legacy MetalLB-based speaker's kube-system/bgp-config.
type LegacyConfig struct {
	Where        string
	Peers        []LegacyPeer
	AddressPools []LegacyPool
}

// LegacyPeer is a bgp-config peer.
type LegacyPeer struct {
	Address netip.Addr
	ASN     uint32
	MyASN   uint32
}

// LegacyPool is a bgp-config address pool.
type LegacyPool struct {
	Name     string
	Protocol string
	Prefixes []netip.Prefix
}
