package cilium

import (
	"fmt"
	"net/netip"
	"strings"

	"gopkg.in/yaml.v3"
)

// Service is a core/v1 Service; routewarden reads LoadBalancer Services' VIPs.
type Service struct {
	Metadata Meta `yaml:"metadata"`
	Spec     struct {
		Type                  string  `yaml:"type"`
		ExternalTrafficPolicy string  `yaml:"externalTrafficPolicy"`
		LoadBalancerClass     *string `yaml:"loadBalancerClass"`
	} `yaml:"spec"`
	Status struct {
		LoadBalancer struct {
			Ingress []struct {
				IP       *IP    `yaml:"ip"`
				Hostname string `yaml:"hostname"`
			} `yaml:"ingress"`
		} `yaml:"loadBalancer"`
	} `yaml:"status"`
}

// ServiceNameLabel is the label that ties an EndpointSlice to its Service.
const ServiceNameLabel = "kubernetes.io/service-name"

// EndpointSlice is a discovery.k8s.io/v1 EndpointSlice.
type EndpointSlice struct {
	Metadata    Meta   `yaml:"metadata"`
	AddressType string `yaml:"addressType"`
	Endpoints   []struct {
		// Addresses are IPs for addressType IPv4 and IPv6, names for FQDN.
		Addresses  []EndpointAddress `yaml:"addresses"`
		Conditions struct {
			// Ready is nil when unknown, which Kubernetes says to read as ready.
			Ready *bool `yaml:"ready"`
		} `yaml:"conditions"`
		NodeName string `yaml:"nodeName"`
	} `yaml:"endpoints"`
}

// EndpointAddress is an endpoint's address as written, with its line: whether
// it must be an IP depends on the slice's addressType.
type EndpointAddress struct {
	Value string
	Line  int
}

// UnmarshalYAML keeps the scalar and its line.
func (a *EndpointAddress) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return &FieldError{Line: n.Line, Msg: "an endpoint address must be a string"}
	}
	a.Value, a.Line = strings.TrimSpace(n.Value), n.Line
	return nil
}

// ips returns an endpoint's addresses as IPs (none for addressType FQDN).
func (s *EndpointSlice) ips(addrs []EndpointAddress) []netip.Addr {
	if s.AddressType != "IPv4" && s.AddressType != "IPv6" {
		return nil
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		if ip, err := netip.ParseAddr(a.Value); err == nil {
			out = append(out, ip.Unmap())
		}
	}
	return out
}

// decodeEndpointSlice decodes a slice and checks that the addresses of an IPv4
// or IPv6 slice are addresses of that family, naming the line of a bad one.
func decodeEndpointSlice(n *yaml.Node, pos Pos, into *[]Sourced[EndpointSlice]) error {
	var es EndpointSlice
	if err := n.Decode(&es); err != nil {
		return err
	}
	for _, e := range es.Endpoints {
		for _, a := range e.Addresses {
			ip, err := netip.ParseAddr(a.Value)
			switch {
			case es.AddressType == "IPv4" && (err != nil || !ip.Unmap().Is4()):
				return &FieldError{Line: a.Line, Msg: fmt.Sprintf("%q is not an IPv4 address (addressType IPv4)", a.Value)}
			case es.AddressType == "IPv6" && (err != nil || !ip.Is6() || ip.Is4In6()):
				return &FieldError{Line: a.Line, Msg: fmt.Sprintf("%q is not an IPv6 address (addressType IPv6)", a.Value)}
			}
		}
	}
	*into = append(*into, Sourced[EndpointSlice]{Pos: pos, Object: es})
	return nil
}
