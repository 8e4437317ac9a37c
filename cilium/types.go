package cilium

// The types below are the subset of Kubernetes and Cilium objects routewarden
// reads, with YAML tags that match the JSON field names (yaml.v3 reads both).

// Meta is an object's identity.
type Meta struct {
	Name      string            `yaml:"name"`
	Namespace string            `yaml:"namespace"`
	Labels    map[string]string `yaml:"labels"`
}

// TypeMeta is apiVersion and kind.
type TypeMeta struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
}

// Node is a core/v1 Node.
type Node struct {
	Metadata Meta `yaml:"metadata"`
	Spec     struct {
		PodCIDR  string `yaml:"podCIDR"`
		PodCIDRs []CIDR `yaml:"podCIDRs"`
	} `yaml:"spec"`
	Status struct {
		Addresses []struct {
			Type    string `yaml:"type"`
			Address string `yaml:"address"`
		} `yaml:"addresses"`
		Conditions []struct {
			Type   string `yaml:"type"`
			Status string `yaml:"status"`
		} `yaml:"conditions"`
	} `yaml:"status"`
}

// CiliumNode is a cilium.io/v2 CiliumNode.
type CiliumNode struct {
	Metadata Meta `yaml:"metadata"`
	Spec     struct {
		Addresses []struct {
			Type string `yaml:"type"`
			IP   IP     `yaml:"ip"`
		} `yaml:"addresses"`
		IPAM struct {
			PodCIDRs []CIDR `yaml:"podCIDRs"`
			Pools    struct {
				Allocated []struct {
					Pool  string `yaml:"pool"`
					CIDRs []CIDR `yaml:"cidrs"`
				} `yaml:"allocated"`
			} `yaml:"pools"`
		} `yaml:"ipam"`
	} `yaml:"spec"`
}

// CiliumPodIPPool is a cilium.io/v2alpha1 CiliumPodIPPool.
type CiliumPodIPPool struct {
	Metadata Meta `yaml:"metadata"`
	Spec     struct {
		IPv4 *struct {
			CIDRs    []CIDR `yaml:"cidrs"`
			MaskSize int    `yaml:"maskSize"`
		} `yaml:"ipv4"`
		IPv6 *struct {
			CIDRs    []CIDR `yaml:"cidrs"`
			MaskSize int    `yaml:"maskSize"`
		} `yaml:"ipv6"`
	} `yaml:"spec"`
}

// CiliumLoadBalancerIPPool is a cilium.io/v2 (or v2alpha1) CiliumLoadBalancerIPPool.
type CiliumLoadBalancerIPPool struct {
	Metadata Meta `yaml:"metadata"`
	Spec     struct {
		Blocks []struct {
			CIDR  *CIDR `yaml:"cidr"`
			Start *IP   `yaml:"start"`
			Stop  *IP   `yaml:"stop"`
		} `yaml:"blocks"`
		Disabled bool `yaml:"disabled"`
	} `yaml:"spec"`
}

// ConfigMap is a core/v1 ConfigMap.
type ConfigMap struct {
	Metadata Meta              `yaml:"metadata"`
	Data     map[string]string `yaml:"data"`
}
