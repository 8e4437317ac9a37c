package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"net/url"
)

// checkHostBits reports a CIDR written with host bits set (10.1.2.3/24): the
// range it names is its network's, which is seldom what was meant.
func checkHostBits(add func(key, format string, args ...any), key string, p netip.Prefix) {
	if m := p.Masked(); m != p {
		add(key, "found %s, expected a network address: the host bits are set (did you mean %s?)", p, m)
	}
}

// checkOverlaps reports dynamic-neighbor ranges that overlap: a node in both
// would open its session under whichever range GoBGP matches first, with that
// range's AS number, password and hold time.
func checkOverlaps(add func(key, format string, args ...any), ds []DynamicNeighborConfig) {
	var seen []netip.Prefix
	var at []int
	for i, d := range ds {
		p, err := netip.ParsePrefix(d.Prefix)
		if err != nil {
			continue
		}
		p = p.Masked()
		for j, q := range seen {
			if p.Overlaps(q) {
				add(fmt.Sprintf("bgp.dynamicNeighbors[%d].prefix", i),
					"found %s, which overlaps bgp.dynamicNeighbors[%d] (%s); expected ranges apart: a node in both "+
						"would get either range's settings", p, at[j], q)
				break
			}
		}
		seen, at = append(seen, p), append(at, i)
	}
}

// checkURL reports a set key that is not an absolute http(s) URL.
func checkURL(add func(key, format string, args ...any), key, s string) {
	if s == "" {
		return
	}
	if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		add(key, "found %q, expected an http(s) URL with a host, e.g. https://example.com/runbook.md", s)
	}
}

// pathErr is the reason of a file error without the path (said already).
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
