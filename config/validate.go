package config

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/validator"
)

// IPAMModes are the IPAM modes cluster.ipamMode and --ipam-mode accept.
var IPAMModes = []string{"cluster-pool", "kubernetes", "multi-pool", "eni", "azure", "alibabacloud", "crd",
	"delegated-plugin"}

// Validate checks every value for check and returns every problem (without
// file or line; Load adds them).
func (c *Config) Validate() Problems { return c.ValidateFor(ForCheck) }

// ValidateFor checks every value, and for run also what the collector cannot
// start without, returning every problem.
func (c *Config) ValidateFor(purpose Purpose) Problems {
	var ps Problems
	add := func(key, format string, args ...any) {
		ps = append(ps, Problem{Key: key, Message: fmt.Sprintf(format, args...)})
	}
	if purpose == ForRun {
		c.BGP.validateForRun(add)
	}
	if m := c.Cluster.IPAMMode; m != "" && !contains(IPAMModes, m) {
		add("cluster.ipamMode", "unknown IPAM mode %q (expected one of: %s)", m, strings.Join(IPAMModes, ", "))
	}
	checkCIDRs(add, "cluster.podRanges", c.Cluster.PodRanges)
	checkCIDRs(add, "cluster.allowedRanges", c.Cluster.AllowedRanges)
	checkCIDRs(add, "cluster.networkRanges", c.Cluster.NetworkRanges)
	for id, rc := range c.Rules {
		if _, ok := validator.Spec(validator.RuleID(id)); !ok {
			add("rules."+id, "unknown rule (expected one of: %s)", strings.Join(validator.RuleIDs(), ", "))
		}
		if rc.Severity != "" {
			if _, err := validator.ParseSeverity(rc.Severity); err != nil {
				add("rules."+id+".severity", "%v", err)
			}
		}
	}
	c.BGP.validate(add)
	c.BGP.BMP.validate(add)
	c.RTR.validate(add)
	c.validateRun(add)
	if _, err := zerolog.ParseLevel(c.Log.Level); err != nil || c.Log.Level == "" {
		add("log.level", "found %q, expected trace, debug, info, warn or error", c.Log.Level)
	}
	if !contains([]string{"auto", "json", "console"}, c.Log.Format) {
		add("log.format", "unknown format %q (expected auto, json or console)", c.Log.Format)
	}
	return ps
}

func (b *BGPConfig) validate(add func(key, format string, args ...any)) {
	used := b.PeerAddress != "" || len(b.Neighbors) > 0 || len(b.DynamicNeighbors) > 0
	if used && b.ASN == 0 {
		add("bgp.asn", asnRequired)
	}
	if b.RouterID != "" {
		if a, err := netip.ParseAddr(b.RouterID); err != nil || !a.Is4() {
			add("bgp.routerId", "%q is not an IPv4 address (a BGP router ID is written as one)", b.RouterID)
		}
	}
	checkAddr(add, "bgp.peerAddress", b.PeerAddress)
	for i, a := range b.ListenAddresses {
		checkAddr(add, fmt.Sprintf("bgp.listenAddresses[%d]", i), a)
	}
	if b.ListenPort < 1 || b.ListenPort > 65535 {
		add("bgp.listenPort", "%d is not a TCP port (1–65535)", b.ListenPort)
	}
	if b.GracefulRestart.Window < 0 || b.GracefulRestart.Window > 4095*time.Second {
		add("bgp.gracefulRestart.window", "%s is outside 0–4095s (BGP's restart time field)", b.GracefulRestart.Window)
	}
	seen := map[string]int{}
	for i, n := range b.Neighbors {
		key := fmt.Sprintf("bgp.neighbors[%d]", i)
		if n.Address == "" {
			add(key+".address", "required: the neighbor's address")
		}
		checkAddr(add, key+".address", n.Address)
		if j, dup := seen[n.Address]; dup && n.Address != "" {
			add(key+".address", "%s is also bgp.neighbors[%d]", n.Address, j)
		}
		seen[n.Address] = i
		checkPeer(add, key, n.PeerSettings)
	}
	for i, d := range b.DynamicNeighbors {
		key := fmt.Sprintf("bgp.dynamicNeighbors[%d]", i)
		if p, err := netip.ParsePrefix(d.Prefix); err != nil {
			add(key+".prefix", "found %q, expected a CIDR such as 10.0.0.0/24", d.Prefix)
		} else {
			checkHostBits(add, key+".prefix", p)
		}
		checkPeer(add, key, d.PeerSettings)
	}
	checkOverlaps(add, b.DynamicNeighbors)
}

const asnRequired = "required: routewarden's own AS number, 1–4294967295 (the peerASN the nodes configure for it)"

// validateForRun reports what run cannot start without (the rest of bgp is
// checked for every purpose).
func (b *BGPConfig) validateForRun(add func(key, format string, args ...any)) {
	if b.ASN == 0 && b.PeerAddress == "" && len(b.Neighbors) == 0 && len(b.DynamicNeighbors) == 0 {
		add("bgp.asn", asnRequired)
	}
	if b.RouterID == "" {
		add("bgp.routerId", "required: an IPv4 address identifying routewarden in BGP, e.g. 192.0.2.1")
	}
	if len(b.Neighbors) == 0 && len(b.DynamicNeighbors) == 0 {
		add("bgp.dynamicNeighbors", "required, or bgp.neighbors: with neither, no node can open a session "+
			"(e.g. dynamicNeighbors: [{prefix: 10.0.0.0/24}], the nodes' range)")
	}
}

func checkPeer(add func(key, format string, args ...any), key string, s PeerSettings) {
	if s.PasswordFile != "" {
		if _, err := os.Stat(s.PasswordFile); err != nil {
			add(key+".passwordFile", "cannot read %q, the TCP MD5 password file: %v", s.PasswordFile, pathErr(err))
		}
	}
	if hold := s.HoldTime; hold != 0 && (hold < 3*time.Second || hold > 65535*time.Second) {
		add(key+".holdTime", "found %s, expected 0 or 3s–65535s (a BGP hold time)", hold)
	}
	if s.Role != "" && !contains(PeerRoles, s.Role) {
		add(key+".role", "unknown role %q (expected node, a Cilium node peering with routewarden, or tor, "+
			"a ToR relaying the nodes' paths)", s.Role)
	}
}

func checkAddr(add func(key, format string, args ...any), key, s string) {
	if s == "" {
		return
	}
	if _, err := netip.ParseAddr(s); err != nil {
		add(key, "found %q, expected an IP address such as 10.0.0.1 or 2001:db8::1", s)
	}
}

func checkCIDRs(add func(key, format string, args ...any), key string, ss []string) {
	for i, s := range ss {
		if p, err := netip.ParsePrefix(s); err != nil {
			add(fmt.Sprintf("%s[%d]", key, i), "%q is not a CIDR (expected e.g. 10.244.0.0/16)", s)
		} else {
			checkHostBits(add, fmt.Sprintf("%s[%d]", key, i), p)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (c *Config) validateRun(add func(key, format string, args ...any)) {
	for key, d := range map[string]time.Duration{"validation.holdDown": c.Validation.HoldDown,
		"validation.warmupTimeout": c.Validation.WarmupTimeout, "validation.debounce": c.Validation.Debounce,
		"kubernetes.tombstoneTTL": c.Kubernetes.TombstoneTTL, "alerting.resendInterval": c.Alerting.ResendInterval,
		"validation.convergence.podCidrAnnounce": c.Validation.Convergence.PodCIDRAnnounce,
		"validation.convergence.podCidrWithdraw": c.Validation.Convergence.PodCIDRWithdraw,
		"validation.convergence.vipAnnounce":     c.Validation.Convergence.VIPAnnounce,
		"validation.convergence.vipWithdraw":     c.Validation.Convergence.VIPWithdraw} {
		if d < 0 {
			add(key, "found %s, expected a duration of 0 or more", d)
		}
	}
	for kind, eps := range map[string][]EndpointConfig{"alertmanagers": c.Alerting.Alertmanagers,
		"webhooks": c.Alerting.Webhooks} {
		for i, e := range eps {
			key := fmt.Sprintf("alerting.%s[%d]", kind, i)
			if u, err := url.Parse(e.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				add(key+".url", "found %q, expected an http(s) URL with a host, e.g. http://alertmanager:9093", e.URL)
			}
			for _, f := range []struct{ key, path string }{{"caFile", e.CAFile}, {"certFile", e.CertFile},
				{"keyFile", e.KeyFile}, {"passwordFile", e.PasswordFile}, {"bearerTokenFile", e.BearerTokenFile}} {
				if f.path != "" {
					if _, err := os.Stat(f.path); err != nil {
						add(key+"."+f.key, "cannot read %q: %v", f.path, pathErr(err))
					}
				}
			}
			if (e.CertFile == "") != (e.KeyFile == "") {
				add(key+".certFile", "certFile and keyFile go together")
			}
		}
	}
	if c.HTTP.Listen != "" {
		if _, _, err := net.SplitHostPort(c.HTTP.Listen); err != nil {
			add("http.listen", "found %q, expected host:port, e.g. \":9479\" (every address) or \"127.0.0.1:9479\"",
				c.HTTP.Listen)
		}
	}
	checkURL(add, "alerting.runbookBase", c.Alerting.RunbookBase)
	checkURL(add, "alerting.externalURL", c.Alerting.ExternalURL)
}
