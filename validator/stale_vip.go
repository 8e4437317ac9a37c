package validator

import "fmt"

// staleVIP fires for a host route inside a LoadBalancer pool whose address no
// Service holds: the Service was deleted (or its IP changed) and the
// announcement stayed. It judges only when the Services are known.
type staleVIP struct{}

func (staleVIP) ID() RuleID { return RuleStaleVIP }

func (r staleVIP) Check(s *Snapshot, report func(Finding)) {
	for i := range s.Routes {
		r.CheckRoute(s, i, report)
	}
}

// CheckRoute judges route i alone (an incremental RouteRule).
func (staleVIP) CheckRoute(s *Snapshot, i int, report func(Finding)) {
	r := s.Routes[i]
	// Paths kept by graceful restart are left to the restarting speaker.
	if !s.Cluster.ServicesKnown || r.Stale || !r.Prefix.IsSingleIP() || s.IsVIP(r.Prefix) || s.Network(i) {
		return
	}
	pool, ok := s.lbPoolOf(r.Prefix)
	if !ok {
		return
	}
	msg := fmt.Sprintf("%s announces %s %s, an address of LoadBalancer pool %s that no Service holds.",
		s.describeOrigin(i), r.Prefix, r.Via(), pool)
	report(Finding{Prefix: r.Prefix, Node: s.Origin(i).Name(), NextHop: r.NextHop, Peer: r.Peer, Message: msg,
		Hint: staleVIPHint})
}
