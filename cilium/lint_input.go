package cilium

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/validator/lint"
)

// LintInput fills the Cilium side of a lint.Input from the objects.
func (o *Objects) LintInput(in *lint.Input) error {
	for _, s := range o.Nodes {
		in.Nodes = append(in.Nodes, lint.NodeLabels{Name: s.Object.Metadata.Name, Labels: s.Object.Metadata.Labels})
	}
	for _, s := range o.BGPClusterCfgs {
		cc := lint.ClusterConfig{Where: s.Pos.String(), Name: s.Object.Metadata.Name, APIVersion: s.Object.APIVersion,
			NodeSelector: toSelector(s.Object.Spec.NodeSelector)}
		for _, bi := range s.Object.Spec.BGPInstances {
			inst := lint.Instance{Name: bi.Name, LocalASN: bi.LocalASN}
			for _, p := range bi.Peers {
				peer := lint.Peer{Name: p.Name, ASN: p.PeerASN}
				if p.PeerAddress != nil {
					peer.Address = p.PeerAddress.Addr
				}
				if p.PeerConfigRef != nil {
					peer.PeerConfig = p.PeerConfigRef.Name
				}
				inst.Peers = append(inst.Peers, peer)
			}
			cc.Instances = append(cc.Instances, inst)
		}
		in.ClusterConfigs = append(in.ClusterConfigs, cc)
	}
	for _, s := range o.BGPPeerCfgs {
		in.PeerConfigs = append(in.PeerConfigs, lint.PeerConfig{Where: s.Pos.String(), Name: s.Object.Metadata.Name,
			Families: toFamilies(s.Object.Spec.Families), GracefulRestart: toGR(s.Object.Spec.GracefulRestart)})
	}
	for _, s := range o.BGPAdverts {
		ad := lint.Advertisement{Where: s.Pos.String(), Name: s.Object.Metadata.Name, Labels: s.Object.Metadata.Labels}
		for _, a := range s.Object.Spec.Advertisements {
			ad.Types = append(ad.Types, a.AdvertisementType)
			e := lint.AdvertisementEntry{Type: a.AdvertisementType,
				LoadBalancerIP: a.Service != nil && slices.Contains(a.Service.Addresses, "LoadBalancerIP")}
			if a.Selector != nil {
				e.Selector = toSelector(a.Selector)
			}
			v, _ := a.Attributes.values() // Cluster reports bad values
			e.Attributes = v.String()
			ad.Entries = append(ad.Entries, e)
		}
		in.Advertisements = append(in.Advertisements, ad)
	}
	for _, s := range o.Services {
		svc := &s.Object
		if svc.Spec.Type == "LoadBalancer" && (svc.Spec.LoadBalancerClass == nil || *svc.Spec.LoadBalancerClass == ciliumLBClass) {
			in.Services = append(in.Services, lint.ServiceLabels{Name: namespaceOf(svc.Metadata) + "/" + svc.Metadata.Name,
				Labels: serviceLabels(svc)})
		}
	}
	for _, s := range o.BGPPeeringPols {
		pp := lint.PeeringPolicy{Where: s.Pos.String(), Name: s.Object.Metadata.Name,
			NodeSelector: toSelector(s.Object.Spec.NodeSelector)}
		for _, vr := range s.Object.Spec.VirtualRouters {
			r := lint.VirtualRouter{LocalASN: vr.LocalASN, ExportPodCIDR: vr.ExportPodCIDR,
				PodIPPoolSelector: toSelector(vr.PodIPPoolSelector)}
			for _, n := range vr.Neighbors {
				r.Neighbors = append(r.Neighbors, lint.Neighbor{Address: n.PeerAddress.Prefix, ASN: n.PeerASN,
					Families: toFamilies(n.Families), GracefulRestart: toGR(n.GracefulRestart)})
			}
			pp.VirtualRouters = append(pp.VirtualRouters, r)
		}
		in.PeeringPolicies = append(in.PeeringPolicies, pp)
	}
	if cfg := o.CiliumConfig(); cfg != nil {
		in.CiliumConfigWhere = cfg.Pos.String()
		in.LegacyAnnouncePodCIDR = cfg.Object.Data["bgp-announce-pod-cidr"] == "true"
	}
	if cm := o.LegacyBGPConfigMap(); cm != nil {
		l, err := legacyConfig(cm)
		if err != nil {
			return err
		}
		in.Legacy = l
	}
	return nil
}

func legacyConfig(cm *Sourced[ConfigMap]) (*lint.LegacyConfig, error) {
	raw, ok := cm.Object.Data["config.yaml"]
	if !ok {
		return nil, fmt.Errorf("%s: ConfigMap kube-system/bgp-config has no data key config.yaml", cm.Pos)
	}
	var cfg LegacyBGPConfig
	if err := yaml.Unmarshal([]byte(raw), &cfg); err != nil {
		return nil, fmt.Errorf("%s: ConfigMap kube-system/bgp-config: data.config.yaml (lines counted inside "+
			"it): %w", cm.Pos, err)
	}
	l := &lint.LegacyConfig{Where: cm.Pos.String()}
	for _, p := range cfg.Peers {
		l.Peers = append(l.Peers, lint.LegacyPeer{Address: p.PeerAddress.Addr, ASN: p.PeerASN, MyASN: p.MyASN})
	}
	for i, ap := range cfg.AddressPools {
		pool := lint.LegacyPool{Name: ap.Name, Protocol: ap.Protocol}
		for _, a := range ap.Addresses {
			ps, err := parseAddressRange(a)
			if err != nil {
				return nil, fmt.Errorf("%s: ConfigMap kube-system/bgp-config: data.config.yaml address-pools[%d]: %w",
					cm.Pos, i, err)
			}
			pool.Prefixes = append(pool.Prefixes, ps...)
		}
		l.AddressPools = append(l.AddressPools, pool)
	}
	return l, nil
}

// parseAddressRange parses MetalLB's "10.0.0.0/24" or "10.0.0.10-10.0.0.20".
func parseAddressRange(s string) ([]netip.Prefix, error) {
	if from, to, ok := strings.Cut(s, "-"); ok {
		a, err1 := netip.ParseAddr(strings.TrimSpace(from))
		b, err2 := netip.ParseAddr(strings.TrimSpace(to))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%q is not an address range (expected 10.0.0.10-10.0.0.20)", s)
		}
		return RangePrefixes(a, b)
	}
	p, err := netip.ParsePrefix(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("%q is not a CIDR or address range", s)
	}
	return []netip.Prefix{p.Masked()}, nil
}

func toSelector(s *LabelSelector) *lint.Selector {
	if s == nil {
		return nil
	}
	out := &lint.Selector{MatchLabels: s.MatchLabels}
	for _, e := range s.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, lint.Requirement{Key: e.Key, Operator: e.Operator,
			Values: e.Values})
	}
	return out
}

func toFamilies(fs []BGPFamily) []lint.Family {
	out := make([]lint.Family, 0, len(fs))
	for _, f := range fs {
		out = append(out, lint.Family{AFI: f.AFI, SAFI: f.SAFI, Advertisements: toSelector(f.Advertisements)})
	}
	return out
}

// toGR applies Cilium's default restart time of 120 s.
func toGR(gr *BGPGracefulRestart) lint.GracefulRestart {
	if gr == nil {
		return lint.GracefulRestart{}
	}
	secs := 120
	if gr.RestartTimeSeconds != nil {
		secs = *gr.RestartTimeSeconds
	}
	return lint.GracefulRestart{Enabled: gr.Enabled, RestartTime: time.Duration(secs) * time.Second}
}
