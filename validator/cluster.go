package validator

import (
	"net/netip"
	"time"
)

// IPAMMode is Cilium's IPAM mode (ConfigMap cilium-config key "ipam").
type IPAMMode string

// The IPAM modes whose pod CIDRs the validator understands.
const (
	IPAMClusterPool IPAMMode = "cluster-pool"
	IPAMKubernetes  IPAMMode = "kubernetes"
	IPAMMultiPool   IPAMMode = "multi-pool"
)

// AdvertisesPodCIDRs reports whether Cilium's BGP control plane announces pod
// CIDRs in this mode. ENI, Azure, AlibabaCloud, CRD and delegated modes have no
// per-node pod CIDR to announce.
func (m IPAMMode) AdvertisesPodCIDRs() bool {
	switch m {
	case IPAMClusterPool, IPAMKubernetes, IPAMMultiPool:
		return true
	}
	return false
}

// Cluster is the cluster's truth at one instant.
type Cluster struct {
	Nodes       []Node
	CiliumNodes []CiliumNode
	// Deleted remembers nodes that left the cluster recently (tombstones), so a
	// finding can name the node a stale route belonged to.
	Deleted []DeletedNode
	IPAM    IPAM
	// LBPools are the CIDRs of CiliumLoadBalancerIPPools.
	LBPools []netip.Prefix
	// Services are the LoadBalancer Services with their VIPs and endpoints.
	Services []Service
	// ServicesKnown says Services were read at all: the VIP rules judge only
	// then (a cluster snapshot without Services says nothing about VIPs).
	ServicesKnown bool
	// NodeASNs are the local ASNs Cilium's BGP configuration gives each node
	// (CiliumBGPClusterConfig, CiliumBGPNodeConfigOverride,
	// CiliumBGPPeeringPolicy): the origin AS of its routes (the rule
	// attribute-mismatch, and the RTR server's ROAs in validator/roa).
	// A node it gives no ASN is one it does not select (BGPSelects).
	NodeASNs map[string][]uint32
	// Advertised are the communities, large communities and local
	// preference Cilium's advertisements tell each node to attach to its pod
	// CIDRs and VIPs (the rule attribute-mismatch); nil when none sets any.
	Advertised *AdvertisedAttributes
	// ChangedAt is when the inventory last changed (the time, on
	// routewarden's clock, the informer delivered the latest event); zero
	// when unknown. validator/convergence times route changes from it.
	ChangedAt time.Time
}

// BGPSelects reports whether Cilium's BGP configuration selects node name,
// so that its agent announces routes at all: the configuration gives it an
// ASN (NodeASNs: a CiliumBGPClusterConfig or CiliumBGPPeeringPolicy whose
// nodeSelector matches it, or the legacy speaker, which runs on every node).
// When the configuration selects no node (no BGP objects read, or none
// matching), which nodes run BGP is unknown and every node counts as
// selected: the rules then expect what they always did.
func (c *Cluster) BGPSelects(name string) bool {
	return len(c.NodeASNs) == 0 || len(c.NodeASNs[name]) > 0
}

// Service is a Kubernetes Service of type LoadBalancer.
type Service struct {
	Namespace string
	Name      string
	Type      string
	// VIPs are the IPs of status.loadBalancer.ingress.
	VIPs []netip.Addr
	// ExternalTrafficPolicy is spec.externalTrafficPolicy ("Cluster" or "Local").
	ExternalTrafficPolicy string
	// Endpoints are the endpoints of the Service's EndpointSlices.
	Endpoints []Endpoint
	// Announced says Cilium's BGP configuration selects the Service's
	// LoadBalancer IPs for announcement; AnnouncedBy names what selects it.
	Announced   bool
	AnnouncedBy string
}

// Endpoint is one endpoint of an EndpointSlice.
type Endpoint struct {
	Addresses []netip.Addr
	NodeName  string
	// Ready is conditions.ready (an absent condition counts as ready).
	Ready bool
}

// IPAM is the cluster's IPAM configuration.
type IPAM struct {
	Mode IPAMMode
	// ModeSource says where Mode came from ("cilium-config", "--ipam-mode",
	// "config", or "default"), for output that explains itself.
	ModeSource string
	// PodRanges are the ranges pod CIDRs are carved from: cluster-pool-ipv4/6-cidr,
	// CiliumPodIPPool CIDRs, or configured ranges.
	PodRanges []netip.Prefix
}

// Node is a Kubernetes Node.
type Node struct {
	Name      string
	Addresses []netip.Addr
	// PodCIDRs is Node.spec.podCIDRs, allocated by kube-controller-manager.
	PodCIDRs []netip.Prefix
	Labels   map[string]string
	Ready    bool
}

// CiliumNode is a cilium.io/v2 CiliumNode; it has the name of its Node.
type CiliumNode struct {
	Name      string
	Addresses []netip.Addr
	// PodCIDRs is spec.ipam.podCIDRs.
	PodCIDRs []netip.Prefix
	// Pools is spec.ipam.pools.allocated (multi-pool IPAM).
	Pools []PoolAllocation
}

// PoolAllocation is one entry of a CiliumNode's spec.ipam.pools.allocated.
type PoolAllocation struct {
	Pool  string
	CIDRs []netip.Prefix
}

// DeletedNode is a tombstone of a node that was deleted.
type DeletedNode struct {
	Name      string
	Addresses []netip.Addr
	CIDRs     []netip.Prefix
	DeletedAt time.Time
}
