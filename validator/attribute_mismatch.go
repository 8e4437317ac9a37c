package validator

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// attributeMismatch fires for a node's own announcement (its pod CIDR, or an
// announced Service VIP) whose path attributes differ from what Cilium's BGP
// configuration tells the node to send:
//   - the origin AS: the last AS of the path must be one of the node's local
//     ASNs (Cluster.NodeASNs, from CiliumBGPClusterConfig and
//     CiliumBGPNodeConfigOverride). A node without known ASNs, or a path
//     without an AS path (iBGP, a node's own Loc-RIB), is not judged;
//   - communities, large communities and (iBGP: a path without an AS path)
//     local preference, against the attributes of the CiliumBGPAdvertisements
//     selecting the prefix for the peer the path was sent to and its
//     address family (Cluster.Advertised, attribute_intent.go); where that
//     peer cannot be told, only what all the node's peers receiving the
//     prefix are told alike (AttributeIntent.Disputed). Only
//     where an advertisement sets attributes, and not on a post-policy path
//     (Attributes.PostPolicy), one a ToR relayed (Attributes.Relayed,
//     a session of role tor), nor a BMP-monitored one whose monitored peer
//     is not the node (sentBy): the ToR's own policy may set or strip
//     them, so such a path is shown (API, status page), not alerted. Its origin AS is
//     judged still: inbound policy prepends, it does not rewrite the
//     origin, and a wrong local ASN shows there as well.
//
// One finding a path, naming every difference.
type attributeMismatch struct{}

func (attributeMismatch) ID() RuleID { return RuleAttributeMismatch }

func (rule attributeMismatch) Check(s *Snapshot, report func(Finding)) {
	for i := range s.Routes {
		rule.CheckRoute(s, i, report)
	}
	rule.CheckCluster(s, report)
}

// CheckRoute checks route i (RouteRule); a post-policy path whose
// pre-policy copy is at hand is judged there (CheckCluster).
func (rule attributeMismatch) CheckRoute(s *Snapshot, i int, report func(Finding)) {
	if r := s.Routes[i]; !s.judgedPrePolicy(r, s.Origin(i).Name()) {
		rule.judge(s, r, s.Origin(i).Node, report)
	}
}

// CheckCluster checks the BMP pre-policy paths, what the nodes sent, of the
// monitored peers whose post-policy view the rules judge (ClusterPart).
// Each message names the router; the paths of one node's session seen by
// several routers (two ToRs monitoring it) are one finding (Finding.Key),
// naming each.
func (rule attributeMismatch) CheckCluster(s *Snapshot, report func(Finding)) {
	type seen struct {
		f       Finding
		base    string   // the message without the routers
		routers []string // the routers that received the path as in base
		more    []string // what other routers received, when it differs
	}
	var out []*seen
	at := map[string]*seen{}
	for _, r := range s.Policy.PrePolicy {
		// A node-side dump's path (check --routes beside --tor-routes) has no router.
		var router []string
		if a := r.Attrs().Router; a.IsValid() {
			router = []string{a.String()}
		}
		rule.judge(s, r, s.Attribute(r).Node, func(f Finding) {
			base := strings.TrimSuffix(f.Message, ".")
			switch x, ok := at[f.Key()]; {
			case !ok:
				x = &seen{f: f, base: base, routers: router}
				at[f.Key()], out = x, append(out, x)
			case x.base == base:
				x.routers = append(x.routers, router...)
			case len(router) == 0:
				x.more = append(x.more, base+".")
			default:
				x.more = append(x.more, base+" (as router "+router[0]+" received it).")
			}
		})
	}
	for _, x := range out {
		noun, as := "router ", ""
		if len(x.routers) > 1 {
			noun = "routers "
		}
		if len(x.routers) > 0 {
			as = " (as " + noun + joinAnd(x.routers) + " received it)"
		}
		x.f.Message = strings.Join(append([]string{x.base + as + "."}, x.more...), " ")
		report(x.f)
	}
}

// joinAnd joins names as "a", "a and b", "a, b and c".
func joinAnd(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// judge checks path r, attributed to node v.
func (attributeMismatch) judge(s *Snapshot, r Route, v *NodeView, report func(Finding)) {
	if v == nil || r.Stale {
		return
	}
	// Neither an intent nor ASNs for the node: nothing to judge (hot path).
	group := s.Cluster.Advertised.group(v.Name)
	if group == nil && len(s.Cluster.NodeASNs[v.Name]) == 0 {
		return
	}
	podCIDR := ownsExactly(s.AllocatedExactly(r.Prefix), v.Name)
	if !podCIDR && !(s.IsVIP(r.Prefix) && announcedService(s, r)) {
		return
	}
	origin, asns := wrongOrigin(s, r, v.Name)
	var in *AttributeIntent
	if group != nil && sentBy(s, r, v) {
		in = s.Cluster.Advertised.intent(group, r, podCIDR)
	}
	diffs := in.diffs(r.Attrs())
	var msg, hint string
	switch {
	case len(diffs) > 0:
		if asns != nil {
			diffs = append([]attrDiff{{what: "origin AS", got: strconv.FormatUint(uint64(origin), 10),
				want: strings.Join(asns, " or ")}}, diffs...)
		}
		msg, hint = in.explain(v.Name, r, diffs)
	case asns != nil:
		msg = fmt.Sprintf("%s announces %s %s with origin AS %d (AS path %s); Cilium's BGP configuration "+
			"gives %s local ASN %s.", v.Name, r.Prefix, r.Via(), origin, r.ASPathString(), v.Name, strings.Join(asns, " or "))
		hint = "Expected origin AS " + strings.Join(asns, " or ") + ", received " +
			strconv.FormatUint(uint64(origin), 10) + ". " + originAdvice + in.disputedNote()
	default:
		return
	}
	report(Finding{Prefix: r.Prefix, Node: v.Name, NextHop: r.NextHop, Peer: r.Peer, Owner: v.Name,
		Message: msg, Hint: hint})
}

// sentBy reports whether the path may show what node v itself sent: not a
// path after a router's inbound policy (PostPolicy), nor one a ToR relayed
// over a session the configuration declares a ToR's (Relayed: routewarden
// behind the ToR), whose communities the ToR's policy may have tagged or
// stripped. The configuration says so, not the addresses: a node may peer
// from an address the cluster does not list. A BMP-monitored path (Router
// set) is the node's own only when the monitored peer is the node: the
// monitoring ToR's session to another router (its MLAG partner, a spine)
// carries the node's next hop with that router's policy applied.
func sentBy(s *Snapshot, r Route, v *NodeView) bool {
	a := r.Attrs()
	if a.PostPolicy || a.Relayed {
		return false
	}
	return !a.Router.IsValid() || s.NodeAt(a.Peer) == v.Name
}

const originAdvice = "Check the node's localASN in CiliumBGPClusterConfig and CiliumBGPNodeConfigOverride " +
	"against the speaker's running configuration (cilium bgp peers), and whether a router on the way rewrites " +
	"the AS path (as-override, remove-private-AS): the ToR's policy may key on it."

// wrongOrigin returns the path's origin AS and the node's local ASNs when
// they are known and the origin is none of them; else nil ASNs.
func wrongOrigin(s *Snapshot, r Route, node string) (uint32, []string) {
	path, asns := r.Attrs().ASPath, s.Cluster.NodeASNs[node]
	if len(path) == 0 || r.Attrs().Unseen.Has(UnseenASPath) || len(asns) == 0 || slices.Contains(asns, path[len(path)-1]) {
		return 0, nil
	}
	want := make([]string, len(asns))
	for k, as := range asns {
		want[k] = strconv.FormatUint(uint64(as), 10)
	}
	return path[len(path)-1], want
}

// The BMP pre-policy view for the rule attribute-mismatch: a ToR that sends
// a node's paths both pre- and post-policy has the rules judge the
// post-policy view (Policy.Drops compares the two), whose
// communities and local preference may be the ToR's policy's. What the node
// sent is the pre-policy view (Policy.PrePolicy): attribute-mismatch
// judges a path there, and leaves its post-policy copy alone.

// sentKey identifies a monitored peer's path across its views: the
// monitoring router, the peer, the prefix; a path without a router (a
// node-side dump's, check --routes beside --tor-routes) by its node.
type sentKey struct {
	router, peer netip.Addr
	prefix       netip.Prefix
	node         string
}

func sentKeyOf(r Route) sentKey {
	a := r.Attrs()
	return sentKey{router: a.Router, peer: a.Peer, prefix: r.Prefix}
}

// indexPrePolicy indexes the pre-policy paths by sentKey; nil when none.
func (s *Snapshot) indexPrePolicy(pre []Route) map[sentKey]bool {
	if len(pre) == 0 {
		return nil
	}
	out := make(map[sentKey]bool, len(pre))
	for _, r := range pre {
		switch {
		case r.Stale: // a stale copy is not judged: its post-policy one is
		case r.Attrs().Router.IsValid():
			out[sentKeyOf(r)] = true
		default:
			if n := s.Attribute(r).Name(); n != "" {
				out[sentKey{prefix: r.Prefix, node: n}] = true
			}
		}
	}
	return out
}

// judgedPrePolicy reports whether r, attributed to node, is a post-policy
// path whose pre-policy copy is in Policy.PrePolicy: attribute-mismatch
// judges that one instead.
func (s *Snapshot) judgedPrePolicy(r Route, node string) bool {
	a := r.Attrs()
	switch {
	case s.sent == nil || !a.PostPolicy:
		return false
	case a.Router.IsValid():
		return s.sent[sentKeyOf(r)]
	}
	return node != "" && s.sent[sentKey{prefix: r.Prefix, node: node}]
}
