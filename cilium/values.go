package cilium

import (
	"fmt"
	"net/netip"
	"strings"

	"gopkg.in/yaml.v3"
)

// CIDR is a prefix decoded from YAML/JSON with a line-numbered error.
type CIDR struct{ netip.Prefix }

// UnmarshalYAML parses "10.244.1.0/24" (a bare address is not a CIDR).
func (c *CIDR) UnmarshalYAML(n *yaml.Node) error {
	p, err := netip.ParsePrefix(strings.TrimSpace(n.Value))
	if err != nil || n.Kind != yaml.ScalarNode {
		return &FieldError{Line: n.Line, Msg: fmt.Sprintf("%q is not a CIDR (expected e.g. 10.244.1.0/24 or "+
			"fd00:10:244:1::/64)", n.Value)}
	}
	c.Prefix = p.Masked()
	return nil
}

// IP is an address decoded from YAML/JSON with a line-numbered error.
type IP struct{ netip.Addr }

// UnmarshalYAML parses "10.0.0.11" or "fd00::11".
func (a *IP) UnmarshalYAML(n *yaml.Node) error {
	v, err := netip.ParseAddr(strings.TrimSpace(n.Value))
	if err != nil || n.Kind != yaml.ScalarNode {
		return &FieldError{Line: n.Line, Msg: fmt.Sprintf("%q is not an IP address", n.Value)}
	}
	a.Addr = v.Unmap()
	return nil
}

// FieldError is a bad value at a line of an input file.
type FieldError struct {
	Line int
	Msg  string
}

func (e *FieldError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

func prefixes(cs []CIDR) []netip.Prefix {
	out := make([]netip.Prefix, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Prefix)
	}
	return out
}

// ParseCIDRList parses Cilium's list values ("10.0.0.0/8 11.0.0.0/8" or
// comma-separated), as used by cluster-pool-ipv4-cidr.
func ParseCIDRList(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		p, err := netip.ParsePrefix(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR", f)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
