package config

import (
	"net/netip"

	"github.com/routewarden/routewarden/validator"
)

// ValidatorOptions turns the validated config into the engine's options.
func (c *Config) ValidatorOptions() validator.Options {
	opts := validator.Options{Rules: map[validator.RuleID]validator.RuleOptions{}, Scope: c.Cluster.NodeSelector}
	for id, rc := range c.Rules {
		ro := validator.RuleOptions{Disabled: rc.Enabled != nil && !*rc.Enabled}
		ro.Severity, _ = validator.ParseSeverity(rc.Severity)
		opts.Rules[validator.RuleID(id)] = ro
	}
	opts.AllowedRanges = mustPrefixes(c.Cluster.AllowedRanges)
	opts.NetworkRanges = mustPrefixes(c.Cluster.NetworkRanges)
	return opts
}

// PodRanges returns the configured pod ranges.
func (c *Config) PodRanges() []netip.Prefix { return mustPrefixes(c.Cluster.PodRanges) }

// mustPrefixes parses already-validated CIDRs.
func mustPrefixes(ss []string) []netip.Prefix {
	var out []netip.Prefix
	for _, s := range ss {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
		}
	}
	return out
}
