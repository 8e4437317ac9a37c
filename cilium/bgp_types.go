package cilium

// LabelSelector is a Kubernetes label selector.
type LabelSelector struct {
	MatchLabels      map[string]string `yaml:"matchLabels"`
	MatchExpressions []struct {
		Key      string   `yaml:"key"`
		Operator string   `yaml:"operator"`
		Values   []string `yaml:"values"`
	} `yaml:"matchExpressions"`
}

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

// BGPClusterConfig is a CiliumBGPClusterConfig (cilium.io/v2 or v2alpha1).
type BGPClusterConfig struct {
	TypeMeta `yaml:",inline"`
	Metadata Meta `yaml:"metadata"`
	Spec     struct {
		NodeSelector *LabelSelector `yaml:"nodeSelector"`
		BGPInstances []struct {
			Name     string `yaml:"name"`
			LocalASN uint32 `yaml:"localASN"`
			Peers    []struct {
				Name          string `yaml:"name"`
				PeerAddress   *IP    `yaml:"peerAddress"`
				PeerASN       uint32 `yaml:"peerASN"`
				PeerConfigRef *struct {
					Name string `yaml:"name"`
				} `yaml:"peerConfigRef"`
			} `yaml:"peers"`
		} `yaml:"bgpInstances"`
	} `yaml:"spec"`
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
		Advertisements []struct {
			AdvertisementType string `yaml:"advertisementType"`
			// Selector selects the Services of a Service advertisement; nil selects none.
			Selector *LabelSelector `yaml:"selector"`
			Service  *struct {
				Addresses []string `yaml:"addresses"`
			} `yaml:"service"`
			// Attributes are the path attributes Cilium attaches (bgp_attributes.go).
			Attributes *BGPAttributes `yaml:"attributes"`
		} `yaml:"advertisements"`
	} `yaml:"spec"`
}

// BGPPeeringPolicy is a cilium.io/v2alpha1 CiliumBGPPeeringPolicy (BGP control plane v1).
type BGPPeeringPolicy struct {
	Metadata Meta `yaml:"metadata"`
	Spec     struct {
		NodeSelector   *LabelSelector `yaml:"nodeSelector"`
		VirtualRouters []struct {
			LocalASN          uint32         `yaml:"localASN"`
			ExportPodCIDR     bool           `yaml:"exportPodCIDR"`
			PodIPPoolSelector *LabelSelector `yaml:"podIPPoolSelector"`
			// ServiceSelector selects the Services whose addresses are announced; nil selects none.
			ServiceSelector       *LabelSelector `yaml:"serviceSelector"`
			ServiceAdvertisements []string       `yaml:"serviceAdvertisements"`
			Neighbors             []struct {
				PeerAddress     CIDR                `yaml:"peerAddress"`
				PeerASN         uint32              `yaml:"peerASN"`
				Families        []BGPFamily         `yaml:"families"`
				GracefulRestart *BGPGracefulRestart `yaml:"gracefulRestart"`
			} `yaml:"neighbors"`
		} `yaml:"virtualRouters"`
	} `yaml:"spec"`
}

// LegacyBGPConfig is the MetalLB-style config.yaml in kube-system/bgp-config.
type LegacyBGPConfig struct {
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
