package validator

import "net/netip"

// The BMP pre-policy view for the rule attribute-mismatch: a ToR that sends
// a node's paths both pre- and post-policy has the rules judge the
// post-policy view (Cluster.PolicyDrops compares the two), whose
// communities and local preference may be the ToR's policy's. What the node
// sent is the pre-policy view (Cluster.PrePolicy): attribute-mismatch
// judges a path there, and leaves its post-policy copy alone.

// sentKey identifies a monitored peer's path across its views: the
// monitoring router, the peer, the prefix.
type sentKey struct {
	router, peer netip.Addr
	prefix       netip.Prefix
}

func sentKeyOf(r Route) sentKey {
	a := r.Attrs()
	return sentKey{router: a.Router, peer: a.Peer, prefix: r.Prefix}
}

// indexPrePolicy indexes the pre-policy paths by sentKey; nil when none.
func indexPrePolicy(pre []Route) map[sentKey]bool {
	if len(pre) == 0 {
		return nil
	}
	out := make(map[sentKey]bool, len(pre))
	for _, r := range pre {
		if r.Attrs().Router.IsValid() {
			out[sentKeyOf(r)] = true
		}
	}
	return out
}

// judgedPrePolicy reports whether r is a post-policy path whose pre-policy
// copy is in Cluster.PrePolicy: attribute-mismatch judges that one instead.
func (s *Snapshot) judgedPrePolicy(r Route) bool {
	return s.sent != nil && r.Attrs().PostPolicy && r.Attrs().Router.IsValid() && s.sent[sentKeyOf(r)]
}
