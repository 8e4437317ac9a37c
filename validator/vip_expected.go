package validator

// ExpectedAnnouncers returns the nodes expected to announce the Service's
// VIPs: the nodes Cilium's BGP configuration selects (those it gives an ASN,
// Cluster.NodeASNs; every node when it gives none) and, with
// externalTrafficPolicy Local, only those with a ready endpoint of it.
// Readiness is the caller's to judge.
func ExpectedAnnouncers(c *Cluster, svc *Service) []*Node {
	var out []*Node
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if len(c.NodeASNs) > 0 && len(c.NodeASNs[n.Name]) == 0 {
			continue
		}
		if svc.LocalTraffic() && !svc.ReadyOn(n.Name) {
			continue
		}
		out = append(out, n)
	}
	return out
}
