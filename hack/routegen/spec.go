package main

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Spec is the content of a scenario's routes.spec.yaml.
type Spec struct {
	Collector struct {
		ASN      uint32 `yaml:"asn"`
		RouterID string `yaml:"routerId"`
		// Networks are prefixes the collector originates itself, as a ToR
		// its rack subnet and loopback (FRR network, gobgp global rib add,
		// a BIRD static protocol): in the dumps from no peer (peer
		// 0.0.0.0 and an unspecified next hop in the pairs verified).
		Networks []string `yaml:"networks"`
	} `yaml:"collector"`
	Speakers []Speaker `yaml:"speakers"`
}

// Speaker is one BGP speaker (a Cilium node) announcing routes to the collector.
type Speaker struct {
	Name         string  `yaml:"name"`
	ASN          uint32  `yaml:"asn"`
	RouterID     string  `yaml:"routerId"`
	LocalAddress string  `yaml:"localAddress"`
	Routes       []Route `yaml:"routes"`
}

// Route is one announced prefix.
type Route struct {
	Prefix      string   `yaml:"prefix"`
	NextHop     string   `yaml:"nextHop"`
	Communities []string `yaml:"communities"`
}

func (r Route) prefix() netip.Prefix { return netip.MustParsePrefix(r.Prefix).Masked() }
func (r Route) nextHop() netip.Addr  { return netip.MustParseAddr(r.NextHop) }
func (r Route) isV6() bool           { return r.prefix().Addr().Is6() }
func (s Speaker) local() netip.Addr  { return netip.MustParseAddr(s.LocalAddress) }
func (s *Spec) ibgp(sp Speaker) bool { return sp.ASN == s.Collector.ASN }
func (s *Spec) speakerByAddr(a string) *Speaker {
	for i := range s.Speakers {
		if s.Speakers[i].LocalAddress == a {
			return &s.Speakers[i]
		}
	}
	return nil
}

func loadSpec(path string) (*Spec, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Spec
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

func (s *Spec) validate() error {
	if s.Collector.ASN == 0 {
		return fmt.Errorf("collector.asn missing")
	}
	if a, err := netip.ParseAddr(s.Collector.RouterID); err != nil || !a.Is4() {
		return fmt.Errorf("collector.routerId %q is not an IPv4 address", s.Collector.RouterID)
	}
	if len(s.Speakers) == 0 {
		return fmt.Errorf("no speakers")
	}
	for i, n := range s.Collector.Networks {
		if _, err := netip.ParsePrefix(n); err != nil {
			return fmt.Errorf("collector.networks[%d]: %w", i, err)
		}
	}
	seen := map[string]bool{}
	for i, sp := range s.Speakers {
		where := fmt.Sprintf("speakers[%d] (%s)", i, sp.Name)
		if sp.ASN == 0 {
			return fmt.Errorf("%s: asn missing", where)
		}
		if a, err := netip.ParseAddr(sp.RouterID); err != nil || !a.Is4() {
			return fmt.Errorf("%s: routerId %q is not an IPv4 address", where, sp.RouterID)
		}
		la, err := netip.ParseAddr(sp.LocalAddress)
		if err != nil || !la.Is4() || !la.IsLoopback() || la == netip.MustParseAddr("127.0.0.1") {
			return fmt.Errorf("%s: localAddress %q must be an IPv4 loopback address other than 127.0.0.1", where, sp.LocalAddress)
		}
		if seen[sp.LocalAddress] {
			return fmt.Errorf("%s: duplicate localAddress %s", where, sp.LocalAddress)
		}
		seen[sp.LocalAddress] = true
		for j, r := range sp.Routes {
			p, err := netip.ParsePrefix(r.Prefix)
			if err != nil {
				return fmt.Errorf("%s routes[%d]: %w", where, j, err)
			}
			nh, err := netip.ParseAddr(r.NextHop)
			if err != nil {
				return fmt.Errorf("%s routes[%d]: nextHop: %w", where, j, err)
			}
			if p.Addr().Is4() != nh.Is4() {
				return fmt.Errorf("%s routes[%d]: prefix %s and nextHop %s are of different address families (not supported)", where, j, p, nh)
			}
			for _, c := range r.Communities {
				if _, _, err := parseCommunity(c); err != nil {
					return fmt.Errorf("%s routes[%d]: %w", where, j, err)
				}
			}
		}
	}
	return nil
}

// hasV6 reports whether any speaker announces an IPv6 prefix.
func (s *Spec) hasV6() bool {
	for _, sp := range s.Speakers {
		for _, r := range sp.Routes {
			if r.isV6() {
				return true
			}
		}
	}
	return false
}

// pair is a (prefix, next hop) pair and the peer (speaker address) the
// collector received it from: the unit of verification.
type pair struct {
	Prefix  netip.Prefix
	NextHop netip.Addr
	Peer    netip.Addr
}

func (p pair) String() string {
	return p.Prefix.String() + " via " + p.NextHop.String() + " from " + p.Peer.String()
}

type pairSet map[pair]bool

func (ps pairSet) add(prefix, nh, peer string) error {
	p, err := netip.ParsePrefix(prefix)
	if err != nil {
		return err
	}
	a, err := netip.ParseAddr(nh)
	if err != nil {
		return fmt.Errorf("next hop of %s: %w", prefix, err)
	}
	pa, err := netip.ParseAddr(peer)
	if err != nil {
		return fmt.Errorf("peer of %s: %w", prefix, err)
	}
	ps[pair{p.Masked(), a.Unmap(), pa.Unmap()}] = true
	return nil
}

func (ps pairSet) sorted() []string {
	out := make([]string, 0, len(ps))
	for p := range ps {
		out = append(out, p.String())
	}
	sort.Strings(out)
	return out
}

// diff describes how got differs from want; "" when equal.
func (want pairSet) diff(got pairSet) string {
	var missing, extra []string
	for p := range want {
		if !got[p] {
			missing = append(missing, p.String())
		}
	}
	for p := range got {
		if !want[p] {
			extra = append(extra, p.String())
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return ""
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return fmt.Sprintf("missing %v, unexpected %v", missing, extra)
}

// expected returns the (prefix, next hop) pairs of the given family
// (4, 6 or 0 for both) announced by the speakers accepted by filter.
func (s *Spec) expected(family int, filter func(Speaker) bool) pairSet {
	ps := pairSet{}
	for _, sp := range s.Speakers {
		if filter != nil && !filter(sp) {
			continue
		}
		for _, r := range sp.Routes {
			if family == 4 && r.isV6() || family == 6 && !r.isV6() {
				continue
			}
			ps[pair{r.prefix(), r.nextHop(), sp.local()}] = true
		}
	}
	if filter == nil {
		for _, n := range s.Collector.Networks {
			p := netip.MustParsePrefix(n).Masked()
			if family == 4 && !p.Addr().Is4() || family == 6 && p.Addr().Is4() {
				continue
			}
			ps.addLocal(p)
		}
	}
	return ps
}

// addLocal adds a route the collector originates: from no peer, with no
// next hop (each collector shows its own routes differently: FRR peerId
// "(unspec)" and next hop 0.0.0.0, an MRT peer index 0, a BIRD static route).
func (ps pairSet) addLocal(p netip.Prefix) {
	nh := netip.IPv4Unspecified()
	if !p.Addr().Is4() {
		nh = netip.IPv6Unspecified()
	}
	ps[pair{p.Masked(), nh, netip.IPv4Unspecified()}] = true
}

// local reports whether peer names no peer: the collector's own route.
func local(peer string) bool {
	a, err := netip.ParseAddr(peer)
	return peer == "(unspec)" || peer == "" || peer == "<nil>" || err == nil && a.IsUnspecified()
}

// parseCommunity parses "A:B" (standard), "A:B:C" (large) or a well-known
// community name. large reports a large community, whose value is in v.
func parseCommunity(c string) (std uint32, large []uint32, err error) {
	switch strings.ToLower(c) {
	case "no-export":
		return 0xFFFFFF01, nil, nil
	case "no-advertise":
		return 0xFFFFFF02, nil, nil
	case "no-export-subconfed":
		return 0xFFFFFF03, nil, nil
	case "blackhole":
		return 0xFFFF029A, nil, nil
	}
	parts := strings.Split(c, ":")
	switch len(parts) {
	case 2:
		a, err1 := strconv.ParseUint(parts[0], 10, 16)
		b, err2 := strconv.ParseUint(parts[1], 10, 16)
		if err1 != nil || err2 != nil {
			return 0, nil, fmt.Errorf("bad community %q", c)
		}
		return uint32(a)<<16 | uint32(b), nil, nil
	case 3:
		var v []uint32
		for _, p := range parts {
			n, err := strconv.ParseUint(p, 10, 32)
			if err != nil {
				return 0, nil, fmt.Errorf("bad large community %q", c)
			}
			v = append(v, uint32(n))
		}
		return 0, v, nil
	}
	return 0, nil, fmt.Errorf("bad community %q", c)
}
