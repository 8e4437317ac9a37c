package cilium

import (
	"fmt"
	"net/netip"
	"strings"

	"gopkg.in/yaml.v3"
)

// LegacyConfig is the legacy MetalLB-based speaker's kube-system/bgp-config,
// read.
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

// LegacySpeaker reads the legacy speaker's bgp-config ConfigMap: nil without
// one, an error (file, what) when its config.yaml cannot be read.
func (o *Objects) LegacySpeaker() (*LegacyConfig, error) {
	cm := o.LegacyBGPConfigMap()
	if cm == nil {
		return nil, nil
	}
	return legacyConfig(cm)
}

func legacyConfig(cm *Sourced[ConfigMap]) (*LegacyConfig, error) {
	raw, ok := cm.Object.Data["config.yaml"]
	if !ok {
		return nil, fmt.Errorf("%s: ConfigMap kube-system/bgp-config has no data key config.yaml", cm.Pos)
	}
	var cfg legacyBGPConfig
	if err := yaml.Unmarshal([]byte(raw), &cfg); err != nil {
		return nil, fmt.Errorf("%s: ConfigMap kube-system/bgp-config: data.config.yaml (lines counted inside "+
			"it): %w", cm.Pos, err)
	}
	l := &LegacyConfig{Where: cm.Pos.String()}
	for _, p := range cfg.Peers {
		l.Peers = append(l.Peers, LegacyPeer{Address: p.PeerAddress.Addr, ASN: p.PeerASN, MyASN: p.MyASN})
	}
	for i, ap := range cfg.AddressPools {
		pool := LegacyPool{Name: ap.Name, Protocol: ap.Protocol}
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

// legacyBGPConfig is the MetalLB-style config.yaml in kube-system/bgp-config,
// as written (LegacyConfig is it read).
type legacyBGPConfig struct {
	Peers []struct {
		PeerAddress IP     `yaml:"peer-address"`
		PeerASN     uint32 `yaml:"peer-asn"`
		MyASN       uint32 `yaml:"my-asn"`
	} `yaml:"peers"`
	AddressPools []struct {
		Name      string   `yaml:"name"`
		Protocol  string   `yaml:"protocol"`
		Addresses []string `yaml:"addresses"`
	} `yaml:"address-pools"`
}
