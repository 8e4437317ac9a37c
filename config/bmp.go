package config

import (
	"net"
	"net/netip"
	"strconv"
)

// BMPConfig is the BMP station (bgp.bmp): routers and Cilium nodes stream
// what they receive to it.
type BMPConfig struct {
	// Listen is host:port, e.g. ":11019"; empty leaves the station off.
	Listen string `mapstructure:"listen" yaml:"listen"`
	// AllowedSources are the prefixes BMP sessions may come from; empty allows any.
	AllowedSources []string `mapstructure:"allowedSources" yaml:"allowedSources"`
}

// Prefixes returns AllowedSources parsed (Validate has checked them).
func (b BMPConfig) Prefixes() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range b.AllowedSources {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
		}
	}
	return out
}

func (b *BMPConfig) validate(add func(key, format string, args ...any)) {
	if b.Listen != "" {
		host, port, err := net.SplitHostPort(b.Listen)
		n, perr := strconv.Atoi(port)
		switch {
		case err != nil:
			add("bgp.bmp.listen", "%q is not host:port (expected e.g. \":11019\")", b.Listen)
		case perr != nil || n < 1 || n > 65535:
			add("bgp.bmp.listen", "%q: port %q is not a TCP port (1–65535)", b.Listen, port)
		case host != "":
			if _, err := netip.ParseAddr(host); err != nil {
				add("bgp.bmp.listen", "%q: host %q is not an IP address", b.Listen, host)
			}
		}
	}
	checkCIDRs(add, "bgp.bmp.allowedSources", b.AllowedSources)
	if b.Listen == "" && len(b.AllowedSources) > 0 {
		add("bgp.bmp.allowedSources", "set, but bgp.bmp.listen is empty: the BMP station is off")
	}
}
