package cilium

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// announcer holds what in Cilium's BGP configuration announces Services'
// LoadBalancer IPs; the validator only gets its yes or no per Service.
type announcer struct {
	selectors []serviceSelector
	// legacyPools are the address pools of the legacy speaker's bgp-config.
	legacyPools []legacyPool
	// legacyAll names cilium-config's bgp-announce-lb-ip when it is "true".
	legacyAll string
}

type serviceSelector struct {
	what string
	sel  *LabelSelector
}

type legacyPool struct {
	what   string
	prefix netip.Prefix
}

// serviceAnnouncer collects the service selectors of the BGP control plane:
//   - v2: CiliumBGPAdvertisement advertisements[] of advertisementType Service
//     whose service.addresses include LoadBalancerIP, with their selector (nil
//     selects none). When CiliumBGPPeerConfigs are given, only advertisements
//     one of their families selects count;
//   - v1: CiliumBGPPeeringPolicy virtualRouters[].serviceSelector (nil selects
//     none) with serviceAdvertisements including LoadBalancerIP (the default);
//   - the legacy speaker: bgp-config address pools, or cilium-config's
//     bgp-announce-lb-ip.
func (o *Objects) serviceAnnouncer() (*announcer, error) {
	a := &announcer{}
	for _, s := range o.BGPAdverts {
		if len(o.BGPPeerCfgs) > 0 && !o.peerConfigSelects(s.Object.Metadata.Labels) {
			continue
		}
		for _, ad := range s.Object.Spec.Advertisements {
			if ad.AdvertisementType != "Service" || ad.Selector == nil || !ad.LoadBalancerIP() {
				continue
			}
			a.selectors = append(a.selectors, serviceSelector{what: "CiliumBGPAdvertisement " + s.Object.Metadata.Name,
				sel: ad.Selector})
		}
	}
	for _, s := range o.BGPPeeringPols {
		for _, vr := range s.Object.Spec.VirtualRouters {
			addrs := vr.ServiceAdvertisements
			if len(addrs) == 0 {
				addrs = []string{"LoadBalancerIP"}
			}
			if vr.ServiceSelector == nil || !slices.Contains(addrs, "LoadBalancerIP") {
				continue
			}
			a.selectors = append(a.selectors, serviceSelector{what: "CiliumBGPPeeringPolicy " + s.Object.Metadata.Name,
				sel: vr.ServiceSelector})
		}
	}
	// Objects from informers come in no particular order: name the same one every time.
	slices.SortStableFunc(a.selectors, func(x, y serviceSelector) int { return strings.Compare(x.what, y.what) })
	if cm := o.LegacyBGPConfigMap(); cm != nil {
		l, err := legacyConfig(cm)
		if err != nil {
			return nil, err
		}
		for _, p := range l.AddressPools {
			for _, pfx := range p.Prefixes {
				a.legacyPools = append(a.legacyPools, legacyPool{prefix: pfx,
					what: fmt.Sprintf("ConfigMap %s/bgp-config (address pool %s)", cm.Object.Metadata.Namespace, p.Name)})
			}
		}
	}
	if cfg := o.CiliumConfig(); cfg != nil && cfg.Object.Data["bgp-announce-lb-ip"] == "true" {
		a.legacyAll = "cilium-config's bgp-announce-lb-ip"
	}
	return a, nil
}

// peerConfigSelects reports whether a family of a CiliumBGPPeerConfig selects
// an advertisement with these labels (a family without a selector selects none).
func (o *Objects) peerConfigSelects(labels map[string]string) bool {
	for _, pc := range o.BGPPeerCfgs {
		for _, f := range pc.Object.Spec.Families {
			if f.Advertisements != nil && f.Advertisements.Matches(labels) {
				return true
			}
		}
	}
	return false
}
