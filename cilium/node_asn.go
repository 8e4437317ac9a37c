package cilium

import "slices"

// BGPNodeConfigOverride is a CiliumBGPNodeConfigOverride, named after the node
// it overrides; localASN replaces the instance's CiliumBGPClusterConfig one.
type BGPNodeConfigOverride struct {
	Metadata Meta `yaml:"metadata"`
	Spec     struct {
		BGPInstances []struct {
			Name     string `yaml:"name"`
			LocalASN uint32 `yaml:"localASN"`
		} `yaml:"bgpInstances"`
	} `yaml:"spec"`
}

// nodeASNs returns each Node's local ASNs, the origin AS of its routes:
// the BGP instances of the CiliumBGPClusterConfigs selecting it (with its
// CiliumBGPNodeConfigOverride's localASN where set), the virtual routers of
// the CiliumBGPPeeringPolicies selecting it, and the legacy speaker's my-asn.
func (o *Objects) nodeASNs() map[string][]uint32 {
	overrides := map[string]map[string]uint32{}
	for _, s := range o.BGPNodeOverrides {
		m := map[string]uint32{}
		for _, in := range s.Object.Spec.BGPInstances {
			if in.LocalASN != 0 {
				m[in.Name] = in.LocalASN
			}
		}
		overrides[s.Object.Metadata.Name] = m
	}
	var legacy []uint32
	if cm := o.LegacyBGPConfigMap(); cm != nil {
		if l, err := legacyConfig(cm); err == nil { // validate-config reports a bad one
			for _, p := range l.Peers {
				legacy = append(legacy, p.MyASN)
			}
		}
	}
	out := map[string][]uint32{}
	for _, n := range o.Nodes {
		name, labels := n.Object.Metadata.Name, n.Object.Metadata.Labels
		asns := append([]uint32(nil), legacy...)
		for _, cc := range o.BGPClusterCfgs {
			if !cc.Object.Spec.NodeSelector.Matches(labels) {
				continue
			}
			for _, in := range cc.Object.Spec.BGPInstances {
				asn := in.LocalASN
				if ov, ok := overrides[name][in.Name]; ok {
					asn = ov
				}
				asns = append(asns, asn)
			}
		}
		for _, pp := range o.BGPPeeringPols {
			if pp.Object.Spec.NodeSelector.Matches(labels) {
				for _, vr := range pp.Object.Spec.VirtualRouters {
					asns = append(asns, vr.LocalASN)
				}
			}
		}
		asns = slices.DeleteFunc(asns, func(a uint32) bool { return a == 0 })
		slices.Sort(asns)
		if asns = slices.Compact(asns); len(asns) > 0 {
			out[name] = asns
		}
	}
	return out
}
