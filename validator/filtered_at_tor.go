package validator

import (
	"fmt"
	"strings"
)

// filteredAtToR fires for a pod CIDR or a Service VIP that Cilium should
// announce, which a ToR received from the right node and whose policy
// dropped it (Policy.Drops): the session is up, Cilium says it
// advertised, and the pods are unreachable. A path the policy accepted but
// changed (next hop, communities) is no drop: the API shows it, nothing fires.
type filteredAtToR struct{}

func (filteredAtToR) ID() RuleID { return RuleFilteredAtToR }

func (filteredAtToR) Check(s *Snapshot, report func(Finding)) {
	for _, d := range s.Policy.Drops {
		r := d.Route
		a := r.Attrs()
		if r.Stale {
			continue
		}
		node := s.Attribute(r).Name()
		what := ""
		switch {
		case node == "":
			continue
		case ownsExactly(s.AllocatedExactly(r.Prefix), node):
			what = "pod CIDR of " + node
		case s.IsVIP(r.Prefix) && announcedService(s, r):
			what = "LoadBalancer IP of " + serviceNames(s, r)
		default:
			continue // not Cilium's to announce from there: other rules judge it
		}
		since := ""
		if !d.Since.IsZero() {
			since = " since " + d.Since.UTC().Format("2006-01-02T15:04:05Z")
			if ago := s.Ago(d.Since); ago != "" {
				since += " (" + ago + ")"
			}
		}
		peer := "peer " + a.Peer.String()
		if a.PeerASN != 0 {
			peer += fmt.Sprintf(", AS %d", a.PeerASN)
		}
		msg := fmt.Sprintf("ToR %s received %s (%s) from %s (%s) and its policy dropped it: "+
			"absent from the ToR's post-policy RIB%s.", d.Router, r.Prefix, what, node, peer, since)
		report(Finding{Prefix: r.Prefix, Node: node, NextHop: a.NextHop, Peer: a.Peer, Owner: node, Message: msg,
			Hint: fmt.Sprintf("Check ToR %s's inbound policy for neighbor %s (prefix-lists, route-maps, max-length "+
				"filters written for another pool): `show bgp neighbor %s received-routes` against "+
				"`show bgp neighbor %s routes`.", d.Router, a.Peer, a.Peer, a.Peer)})
	}
}

func ownsExactly(as []Allocation, node string) bool {
	for _, a := range as {
		if a.Node == node {
			return true
		}
	}
	return false
}

func announcedService(s *Snapshot, r Route) bool {
	for _, svc := range s.ServicesOf(r.Prefix.Addr()) {
		if svc.Announced {
			return true
		}
	}
	return false
}

func serviceNames(s *Snapshot, r Route) string {
	var names []string
	for _, svc := range s.ServicesOf(r.Prefix.Addr()) {
		names = append(names, svc.Namespace+"/"+svc.Name)
	}
	return strings.Join(names, ", ")
}
