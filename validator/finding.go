package validator

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// Severity orders findings; a higher value is worse.
type Severity int

// Severities, from least to most severe.
const (
	SeverityInfo Severity = iota + 1
	SeverityWarning
	SeverityCritical
)

var severityNames = map[Severity]string{SeverityInfo: "info", SeverityWarning: "warning", SeverityCritical: "critical"}

func (s Severity) String() string {
	if n, ok := severityNames[s]; ok {
		return n
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// ParseSeverity parses "info", "warning" or "critical".
func ParseSeverity(s string) (Severity, error) {
	for sev, name := range severityNames {
		if strings.EqualFold(s, name) {
			return sev, nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (expected info, warning or critical)", s)
}

// MarshalText encodes the severity by name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err == nil {
		*s = v
	}
	return err
}

// Finding is one disagreement between the routes and the cluster.
type Finding struct {
	Rule     RuleID       `json:"rule"`
	Severity Severity     `json:"severity"`
	Prefix   netip.Prefix `json:"prefix"`
	// Node is the node the route (or the missing CIDR) belongs to; empty when none.
	Node    string     `json:"node"`
	NextHop netip.Addr `json:"nextHop"`
	Peer    netip.Addr `json:"peer"`
	// Owner is the node (or nodes, comma-separated) the prefix is allocated to.
	Owner   string `json:"owner"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
}

// Key identifies a finding across validations, for diffing and alert identity.
func (f Finding) Key() string {
	return strings.Join([]string{string(f.Rule), f.Prefix.String(), f.Node, addrString(f.NextHop),
		addrString(f.Peer), f.Owner}, "|")
}

func addrString(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

// CompareFindings orders by node, severity (worst first), rule, prefix, next hop, peer, owner.
func CompareFindings(a, b Finding) int {
	return cmp.Or(
		cmp.Compare(a.Node, b.Node),
		cmp.Compare(b.Severity, a.Severity),
		cmp.Compare(a.Rule, b.Rule),
		comparePrefix(a.Prefix, b.Prefix),
		a.NextHop.Compare(b.NextHop),
		a.Peer.Compare(b.Peer),
		cmp.Compare(a.Owner, b.Owner),
		cmp.Compare(a.Message, b.Message),
		cmp.Compare(a.Hint, b.Hint),
	)
}

func comparePrefix(a, b netip.Prefix) int {
	return cmp.Or(a.Addr().Compare(b.Addr()), cmp.Compare(a.Bits(), b.Bits()))
}

// SortFindings sorts findings into their canonical order.
func SortFindings(fs []Finding) { slices.SortFunc(fs, CompareFindings) }
