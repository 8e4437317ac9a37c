package validator

// Evidence: a route source states which path attributes it cannot show
// (Attributes.Unseen: a dump format that carries no communities, say), and
// a rule never judges those. Unjudged says which of them a validation would
// have judged, for a note naming what was not judged and what would show it.

// unseenNames names the attributes of an AttrSet, in bit order.
var unseenNames = [...]string{"communities", "large communities", "local preference", "AS path", "next hop"}

// Names returns the attributes in s, e.g. ["communities", "local preference"].
func (s AttrSet) Names() []string {
	var out []string
	for k, name := range unseenNames {
		if s&(1<<k) != 0 {
			out = append(out, name)
		}
	}
	return out
}

// Judged returns the attributes the cluster gives rules something to judge
// by: communities, large communities and local preference where Cilium's
// advertisements set attributes (Cluster.Advertised), the AS path (the
// origin AS, and iBGP for local preference) where nodes' ASNs are known or
// advertisements set attributes. The next hop attributes routes to nodes.
func (c *Cluster) Judged() AttrSet {
	judged := UnseenNextHop
	if c.Advertised != nil {
		judged |= UnseenCommunities | UnseenLargeCommunities | UnseenLocalPref | UnseenASPath
	}
	if len(c.NodeASNs) > 0 {
		judged |= UnseenASPath
	}
	return judged
}

// Unjudged returns the attributes some of routes' sources cannot show that
// the cluster would have had judged (Cluster.Judged): what a validation of
// them left unjudged.
func Unjudged(c *Cluster, routes []Route) AttrSet {
	var unseen AttrSet
	var last *Attributes
	for _, r := range routes {
		if a := r.Attributes; a != nil && a != last {
			unseen |= a.Unseen
			last = a
		}
	}
	return unseen & c.Judged()
}
