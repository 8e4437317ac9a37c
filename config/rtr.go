package config

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"time"
)

// RTRConfig is the RPKI-RTR cache server (rtr): it serves the cluster's
// allocations as ROAs to the ToR switches, which then reject what the
// cluster did not allocate themselves. Off unless enabled.
type RTRConfig struct {
	Enabled bool `mapstructure:"enabled" yaml:"enabled"`
	// Listen is host:port (RTR's IANA port is 323, 8282 the common unprivileged one).
	Listen string `mapstructure:"listen" yaml:"listen"`
	// AllowedClients are the prefixes routers may connect from; empty allows any.
	AllowedClients []string `mapstructure:"allowedClients" yaml:"allowedClients"`
	// Refresh, Retry and Expire are the End of Data timers routers are given (RFC 8210 section 6).
	Refresh time.Duration `mapstructure:"refresh" yaml:"refresh"`
	Retry   time.Duration `mapstructure:"retry" yaml:"retry"`
	Expire  time.Duration `mapstructure:"expire" yaml:"expire"`
	// MaxDropShare is the largest share (0–1) of the served prefixes one update
	// may leave without an origin AS; a larger drop's withdrawals are held (and
	// routewarden_rtr_update_held is 1), its additions served.
	MaxDropShare float64 `mapstructure:"maxDropShare" yaml:"maxDropShare"`
	// HoldDrop serves a held drop once it has persisted this long; 0 holds it
	// until it shrinks below maxDropShare or routewarden restarts.
	HoldDrop time.Duration `mapstructure:"holdDrop" yaml:"holdDrop"`
	// NodeASN is the AS of nodes Cilium's BGP objects give no localASN; 0: none
	// (their allocations then get no ROA, and their pools no AS0 ROA: fail open).
	NodeASN uint32 `mapstructure:"nodeASN" yaml:"nodeASN"`
	// MaxSessions bounds the RTR sessions served at once to clients outside
	// Routers; when they are all open, a newcomer takes the place of the one
	// quiet longest, else it is refused (each costs memory, and the port may
	// be reachable from anywhere).
	MaxSessions int `mapstructure:"maxSessions" yaml:"maxSessions"`
	// Routers are the ToRs' addresses (or prefixes): their sessions are always
	// served, never counted against maxSessions nor evicted for another client,
	// and logged without rate limit.
	Routers []string `mapstructure:"routers" yaml:"routers"`
}

// rtrDefaults are the rtr keys' defaults (config.go's defaults hold them).
var rtrDefaults = map[string]any{
	"rtr.listen":       ":8282",
	"rtr.refresh":      "60s",
	"rtr.retry":        "30s",
	"rtr.expire":       "2h",
	"rtr.maxDropShare": 0.5,
	"rtr.maxSessions":  32,
}

// ClientPrefixes returns AllowedClients parsed (Validate has checked them).
func (r RTRConfig) ClientPrefixes() []netip.Prefix { return mustPrefixes(r.AllowedClients) }

// RouterPrefixes returns Routers parsed, an address as its host prefix
// (Validate has checked them).
func (r RTRConfig) RouterPrefixes() []netip.Prefix {
	out := make([]netip.Prefix, 0, len(r.Routers))
	for _, s := range r.Routers {
		if a, err := netip.ParseAddr(s); err == nil {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		out = append(out, mustPrefixes([]string{s})...)
	}
	return out
}

func (r *RTRConfig) validate(add func(key, format string, args ...any)) {
	if !r.Enabled {
		return
	}
	host, port, err := net.SplitHostPort(r.Listen)
	n, perr := strconv.Atoi(port)
	switch {
	case err != nil:
		add("rtr.listen", "%q is not host:port (expected e.g. \":8282\")", r.Listen)
	case perr != nil || n < 1 || n > 65535:
		add("rtr.listen", "%q: port %q is not a TCP port (1–65535)", r.Listen, port)
	case host != "":
		if _, err := netip.ParseAddr(host); err != nil {
			add("rtr.listen", "%q: host %q is not an IP address", r.Listen, host)
		}
	}
	checkCIDRs(add, "rtr.allowedClients", r.AllowedClients)
	allowed := r.ClientPrefixes()
	for i, s := range r.Routers {
		p, err := netip.ParsePrefix(s)
		if a, aerr := netip.ParseAddr(s); aerr == nil {
			p, err = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
		}
		key := fmt.Sprintf("rtr.routers[%d]", i)
		switch {
		case err != nil:
			add(key, "%q is neither an IP address nor a CIDR (expected e.g. 10.0.0.1 or 10.0.0.0/29)", s)
		case len(allowed) > 0 && !slices.ContainsFunc(allowed, func(a netip.Prefix) bool { return a.Bits() <= p.Bits() && a.Contains(p.Addr()) }):
			add(key, "%s is outside rtr.allowedClients: it could never connect", s)
		}
	}
	// RFC 8210 section 6's ranges, and expire beyond refresh and retry.
	for _, t := range []struct {
		key       string
		d, lo, hi time.Duration
	}{{"rtr.refresh", r.Refresh, time.Second, 86400 * time.Second}, {"rtr.retry", r.Retry, time.Second, 7200 * time.Second},
		{"rtr.expire", r.Expire, 600 * time.Second, 172800 * time.Second}} {
		switch {
		case t.d < t.lo || t.d > t.hi:
			add(t.key, "%s is outside %s–%s (RFC 8210 section 6)", t.d, t.lo, t.hi)
		case t.d%time.Second != 0:
			add(t.key, "%s is not whole seconds", t.d)
		}
	}
	if r.Expire <= r.Refresh || r.Expire <= r.Retry {
		add("rtr.expire", "%s must be longer than rtr.refresh (%s) and rtr.retry (%s)", r.Expire, r.Refresh, r.Retry)
	}
	if r.MaxDropShare < 0 || r.MaxDropShare > 1 {
		add("rtr.maxDropShare", "%g is not a share between 0 and 1", r.MaxDropShare)
	}
	if r.MaxSessions < 1 {
		add("rtr.maxSessions", "%d: at least 1 session must be allowed", r.MaxSessions)
	}
	if r.HoldDrop < 0 {
		add("rtr.holdDrop", "%s is negative", r.HoldDrop)
	}
}
