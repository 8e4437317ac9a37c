package validator

import (
	"net/netip"
	"strings"
)

// svcSpec builds a LoadBalancer Service "ns/name" for the VIP rule tables.
// Endpoints are "node1" (ready) or "node1!" (not ready).
type svcSpec struct {
	name      string
	vips      []string
	local     bool
	endpoints []string
	announced bool
}

func withServices(c *Cluster, specs ...svcSpec) *Cluster {
	c.ServicesKnown = true
	c.LBPools = pfxs("172.16.100.0/24", "fd00:172:16::/112")
	for _, sp := range specs {
		ns, name, _ := strings.Cut(sp.name, "/")
		svc := Service{Namespace: ns, Name: name, Type: "LoadBalancer", ExternalTrafficPolicy: "Cluster",
			Announced: sp.announced}
		if sp.local {
			svc.ExternalTrafficPolicy = "Local"
		}
		if sp.announced {
			svc.AnnouncedBy = "CiliumBGPAdvertisement lb-vips"
		}
		for _, v := range sp.vips {
			svc.VIPs = append(svc.VIPs, addr(v))
		}
		for _, e := range sp.endpoints {
			node, notReady := strings.CutSuffix(e, "!")
			svc.Endpoints = append(svc.Endpoints, Endpoint{NodeName: node, Ready: !notReady,
				Addresses: []netip.Addr{addr("10.244.1.10")}})
		}
		c.Services = append(c.Services, svc)
	}
	return c
}
