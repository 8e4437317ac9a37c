package cilium

import (
	"fmt"
	"net/netip"

	"github.com/routewarden/routewarden/validator"
)

// ClusterOptions are settings that override or complete what the objects say.
type ClusterOptions struct {
	// IPAMMode overrides cilium-config's ipam when set; ModeSource names where it came from.
	IPAMMode   validator.IPAMMode
	ModeSource string
	// PodRanges are added to the ranges found in the objects.
	PodRanges []netip.Prefix
	// CiliumNamespace is where cilium-config lives (default kube-system).
	CiliumNamespace string
	// BadAdvertisement, when set (the live inventory), is told of each
	// CiliumBGPAdvertisement whose attributes cannot be read, and the prefixes
	// it selects are left unjudged; unset (check, validate-config), such an
	// advertisement is an input error.
	BadAdvertisement func(error)
}

// CiliumConfig returns the cilium-config ConfigMap, if present.
func (o *Objects) CiliumConfig() *Sourced[ConfigMap] { return o.configMap("cilium-config") }

// LegacyBGPConfigMap returns the bgp-config ConfigMap, if present.
func (o *Objects) LegacyBGPConfigMap() *Sourced[ConfigMap] { return o.configMap("bgp-config") }

// configMap finds a ConfigMap by name in Cilium's namespace (kube-system unless
// Objects.CiliumNamespace says otherwise; objects without a namespace match).
func (o *Objects) configMap(name string) *Sourced[ConfigMap] {
	ns := o.CiliumNamespace
	if ns == "" {
		ns = "kube-system"
	}
	for i := range o.ConfigMaps {
		m := o.ConfigMaps[i].Object.Metadata
		if m.Name == name && (m.Namespace == ns || m.Namespace == "") {
			return &o.ConfigMaps[i]
		}
	}
	return nil
}

// IPAM resolves the IPAM mode and pod ranges: the explicit setting first, then
// cilium-config, then Cilium's default (cluster-pool).
func (o *Objects) IPAM(opts ClusterOptions) (validator.IPAM, error) {
	if opts.CiliumNamespace != "" {
		o.CiliumNamespace = opts.CiliumNamespace
	}
	ipam := validator.IPAM{Mode: opts.IPAMMode, ModeSource: opts.ModeSource}
	cfg := o.CiliumConfig()
	if ipam.Mode == "" && cfg != nil && cfg.Object.Data["ipam"] != "" {
		ipam.Mode, ipam.ModeSource = validator.IPAMMode(cfg.Object.Data["ipam"]), "cilium-config"
	}
	if ipam.Mode == "" {
		ipam.Mode, ipam.ModeSource = validator.IPAMClusterPool, "default"
	}
	ipam.PodRanges = append(ipam.PodRanges, opts.PodRanges...)
	if cfg != nil && ipam.Mode == validator.IPAMClusterPool {
		for _, fam := range []string{"ipv4", "ipv6"} {
			key := "cluster-pool-" + fam + "-cidr"
			if v := cfg.Object.Data[key]; v != "" && cfg.Object.Data["enable-"+fam] != "false" {
				ps, err := ParseCIDRList(v)
				if err != nil {
					return ipam, fmt.Errorf("%s: ConfigMap kube-system/cilium-config: data.%s: %w", cfg.Pos, key, err)
				}
				ipam.PodRanges = append(ipam.PodRanges, ps...)
			}
		}
	}
	if ipam.Mode == validator.IPAMMultiPool {
		for _, p := range o.PodIPPools {
			if v4 := p.Object.Spec.IPv4; v4 != nil {
				ipam.PodRanges = append(ipam.PodRanges, prefixes(v4.CIDRs)...)
			}
			if v6 := p.Object.Spec.IPv6; v6 != nil {
				ipam.PodRanges = append(ipam.PodRanges, prefixes(v6.CIDRs)...)
			}
		}
	}
	return ipam, nil
}

// Cluster translates the objects into the validator's model.
func (o *Objects) Cluster(opts ClusterOptions) (*validator.Cluster, error) {
	ipam, err := o.IPAM(opts)
	if err != nil {
		return nil, err
	}
	c := &validator.Cluster{IPAM: ipam}
	for _, s := range o.Nodes {
		n, err := ToNode(&s.Object)
		if err != nil {
			return nil, fmt.Errorf("%s: Node %s: %w", s.Pos, s.Object.Metadata.Name, err)
		}
		c.Nodes = append(c.Nodes, n)
	}
	for _, s := range o.CiliumNodes {
		c.CiliumNodes = append(c.CiliumNodes, ToCiliumNode(&s.Object))
	}
	for _, s := range o.LBIPPools {
		ps, err := LBPoolPrefixes(&s.Object)
		if err != nil {
			return nil, fmt.Errorf("%s: CiliumLoadBalancerIPPool %s: %w", s.Pos, s.Object.Metadata.Name, err)
		}
		c.LBPools = append(c.LBPools, ps...)
	}
	if err := o.addServices(c); err != nil {
		return nil, err
	}
	c.NodeASNs = o.nodeASNs()
	if c.Advertised, err = o.advertisedAttributes(opts.BadAdvertisement); err != nil {
		return nil, err
	}
	return c, nil
}

// ToNode translates a Node; addresses that are not IPs (Hostname) are skipped.
func ToNode(n *Node) (validator.Node, error) {
	out := validator.Node{Name: n.Metadata.Name, Labels: n.Metadata.Labels, PodCIDRs: prefixes(n.Spec.PodCIDRs)}
	if len(out.PodCIDRs) == 0 && n.Spec.PodCIDR != "" {
		p, err := netip.ParsePrefix(n.Spec.PodCIDR)
		if err != nil {
			return out, fmt.Errorf("spec.podCIDR %q is not a CIDR", n.Spec.PodCIDR)
		}
		out.PodCIDRs = []netip.Prefix{p.Masked()}
	}
	for _, a := range n.Status.Addresses {
		if ip, err := netip.ParseAddr(a.Address); err == nil && (a.Type == "InternalIP" || a.Type == "ExternalIP") {
			out.Addresses = append(out.Addresses, ip.Unmap())
		}
	}
	for _, c := range n.Status.Conditions {
		if c.Type == "Ready" {
			out.Ready = c.Status == "True"
		}
	}
	return out, nil
}

// ToCiliumNode translates a CiliumNode.
func ToCiliumNode(cn *CiliumNode) validator.CiliumNode {
	out := validator.CiliumNode{Name: cn.Metadata.Name, PodCIDRs: prefixes(cn.Spec.IPAM.PodCIDRs)}
	for _, a := range cn.Spec.Addresses {
		if a.IP.IsValid() {
			out.Addresses = append(out.Addresses, a.IP.Addr)
		}
	}
	for _, p := range cn.Spec.IPAM.Pools.Allocated {
		out.Pools = append(out.Pools, validator.PoolAllocation{Pool: p.Pool, CIDRs: prefixes(p.CIDRs)})
	}
	return out
}
