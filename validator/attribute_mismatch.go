package validator

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// attributeMismatch fires for a node's own announcement (its pod CIDR, or an
// announced Service VIP) whose path attributes differ from what Cilium's BGP
// configuration tells the node to send. It judges the origin AS today: the
// last AS of the path must be one of the node's local ASNs
// (Cluster.NodeASNs, from CiliumBGPClusterConfig and
// CiliumBGPNodeConfigOverride). A node without known ASNs, or a path without
// an AS path (iBGP, a node's own Loc-RIB), is not judged.
type attributeMismatch struct{}

func (attributeMismatch) ID() RuleID                { return RuleAttributeMismatch }
func (attributeMismatch) DefaultSeverity() Severity { return SeverityWarning }
func (attributeMismatch) Description() string {
	return "a node's own announcement carries an origin AS other than the local ASN Cilium's BGP configuration gives it"
}

func (rule attributeMismatch) Check(s *Snapshot, report func(Finding)) {
	for i := range s.Routes {
		rule.CheckRoute(s, i, report)
	}
}

// CheckRoute checks route i (RouteRule).
func (attributeMismatch) CheckRoute(s *Snapshot, i int, report func(Finding)) {
	r := s.Routes[i]
	v := s.Origin(i).Node
	path := r.Attrs().ASPath
	if v == nil || r.Stale || len(path) == 0 {
		return
	}
	asns := s.Cluster.NodeASNs[v.Name]
	if len(asns) == 0 || !ownsExactly(s.AllocatedExactly(r.Prefix), v.Name) && !(s.IsVIP(r.Prefix) && announcedService(s, r)) {
		return
	}
	origin := path[len(path)-1]
	if slices.Contains(asns, origin) {
		return
	}
	want := make([]string, len(asns))
	for k, as := range asns {
		want[k] = strconv.FormatUint(uint64(as), 10)
	}
	msg := fmt.Sprintf("%s announces %s %s with origin AS %d (AS path %s); Cilium's BGP configuration gives %s "+
		"local ASN %s.", v.Name, r.Prefix, r.Via(), origin, r.ASPathString(), v.Name, strings.Join(want, " or "))
	report(Finding{Prefix: r.Prefix, Node: v.Name, NextHop: r.NextHop, Peer: r.Peer, Owner: v.Name, Message: msg,
		Hint: "Expected origin AS " + strings.Join(want, " or ") + ", received " + strconv.FormatUint(uint64(origin), 10) +
			". Check the node's localASN in CiliumBGPClusterConfig and CiliumBGPNodeConfigOverride against the " +
			"speaker's running configuration (cilium bgp peers), and whether a router on the way rewrites the AS " +
			"path (as-override, remove-private-AS): the ToR's policy may key on it."})
}
