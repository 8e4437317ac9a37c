package cilium

import (
	"maps"
	"net/netip"
	"slices"

	"github.com/routewarden/routewarden/validator"
)

// ciliumLBClass is the loadBalancerClass of Services Cilium's BGP control plane
// announces; Services without a class are announced too.
const ciliumLBClass = "io.cilium/bgp-control-plane"

// addServices puts the LoadBalancer Services, their endpoints (from their
// EndpointSlices) and whether Cilium announces their VIPs into c.
func (o *Objects) addServices(c *validator.Cluster) error {
	c.ServicesKnown = o.ServicesRead
	if len(o.Services) == 0 {
		return nil
	}
	ann, err := o.serviceAnnouncer()
	if err != nil {
		return err
	}
	bySvc := o.slicesByService()
	for _, s := range o.Services {
		svc := &s.Object
		if svc.Spec.Type != "LoadBalancer" {
			continue
		}
		ns := namespaceOf(svc.Metadata)
		out := validator.Service{Namespace: ns, Name: svc.Metadata.Name, Type: svc.Spec.Type,
			ExternalTrafficPolicy: svc.Spec.ExternalTrafficPolicy}
		if out.ExternalTrafficPolicy == "" {
			out.ExternalTrafficPolicy = "Cluster"
		}
		for _, in := range svc.Status.LoadBalancer.Ingress {
			if in.IP != nil && in.IP.IsValid() && !slices.Contains(out.VIPs, in.IP.Addr) {
				out.VIPs = append(out.VIPs, in.IP.Addr)
			}
		}
		for _, es := range bySvc[ns+"/"+svc.Metadata.Name] {
			for _, e := range es.Endpoints {
				ready := e.Conditions.Ready == nil || *e.Conditions.Ready
				out.Endpoints = append(out.Endpoints, validator.Endpoint{Addresses: es.ips(e.Addresses),
					NodeName: e.NodeName, Ready: ready})
			}
		}
		out.Announced, out.AnnouncedBy = ann.announces(svc, out.VIPs)
		c.Services = append(c.Services, out)
	}
	return nil
}

func namespaceOf(m Meta) string {
	if m.Namespace == "" {
		return "default"
	}
	return m.Namespace
}

// slicesByService groups the EndpointSlices by "namespace/service".
func (o *Objects) slicesByService() map[string][]*EndpointSlice {
	out := map[string][]*EndpointSlice{}
	for i := range o.EndpointSlices {
		es := &o.EndpointSlices[i].Object
		if name := es.Metadata.Labels[ServiceNameLabel]; name != "" {
			k := namespaceOf(es.Metadata) + "/" + name
			out[k] = append(out[k], es)
		}
	}
	return out
}

// serviceLabels are the labels Cilium matches service selectors against: the
// Service's own plus its name and namespace.
func serviceLabels(svc *Service) map[string]string {
	l := maps.Clone(svc.Metadata.Labels)
	if l == nil {
		l = map[string]string{}
	}
	l["io.kubernetes.service.name"] = svc.Metadata.Name
	l["io.kubernetes.service.namespace"] = namespaceOf(svc.Metadata)
	return l
}

// ServiceLabels are a LoadBalancer Service's name ("namespace/name") and the
// labels Cilium's selectors match (its own and io.kubernetes.service.*).
type ServiceLabels struct {
	Name   string
	Labels map[string]string
}

// BGPServices are the LoadBalancer Services Cilium's BGP control plane may
// announce (of its loadBalancerClass, or of none), with their labels.
func (o *Objects) BGPServices() []ServiceLabels {
	var out []ServiceLabels
	for _, s := range o.Services {
		if svc := &s.Object; bgpService(svc) {
			out = append(out, ServiceLabels{Name: namespaceOf(svc.Metadata) + "/" + svc.Metadata.Name,
				Labels: serviceLabels(svc)})
		}
	}
	return out
}

// bgpService reports whether svc is a LoadBalancer Service of Cilium's BGP
// control plane's class, or of none.
func bgpService(svc *Service) bool {
	return svc.Spec.Type == "LoadBalancer" && (svc.Spec.LoadBalancerClass == nil ||
		*svc.Spec.LoadBalancerClass == ciliumLBClass)
}

// announces decides whether Cilium's BGP configuration announces a Service's
// LoadBalancer IPs, and names what does.
func (a *announcer) announces(svc *Service, vips []netip.Addr) (bool, string) {
	if cls := svc.Spec.LoadBalancerClass; cls != nil && *cls != ciliumLBClass {
		return false, ""
	}
	labels := serviceLabels(svc)
	for _, s := range a.selectors {
		if s.sel.Matches(labels) {
			return true, s.what
		}
	}
	for _, p := range a.legacyPools {
		if slices.ContainsFunc(vips, p.prefix.Contains) {
			return true, p.what
		}
	}
	if a.legacyAll != "" {
		return true, a.legacyAll
	}
	return false, ""
}
