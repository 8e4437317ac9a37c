package validator

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"
	"sync"
)

// vipState indexes the Services' VIPs for the VIP rules and for the pod-CIDR
// rules, which leave a Service's VIP alone. It is built on first use.
type vipState struct {
	once sync.Once
	// v4 and v6 map a VIP to its entry in svcs: integer keys hash fast,
	// netip.Addr keys do not.
	v4   map[uint32]int32
	v6   map[[16]byte]int32
	svcs [][]*Service
	// addrs are the distinct VIPs, sorted.
	addrs []netip.Addr
	// announcers are the Services' expected announcers (vip_expected.go).
	announcers *AnnouncerIndex
}

func (v *vipState) lookup(a netip.Addr) (int32, bool) {
	if a.Is4() {
		i, ok := v.v4[binary.BigEndian.Uint32(a.AsSlice())]
		return i, ok
	}
	i, ok := v.v6[a.As16()]
	return i, ok
}

func (s *Snapshot) vips() *vipState {
	v := &s.vip
	v.once.Do(func() {
		v.v4, v.v6 = make(map[uint32]int32, len(s.Cluster.Services)), map[[16]byte]int32{}
		for i := range s.Cluster.Services {
			svc := &s.Cluster.Services[i]
			for _, a := range svc.VIPs {
				j, ok := v.lookup(a)
				if !ok {
					j = int32(len(v.svcs))
					v.svcs = append(v.svcs, nil)
					v.addrs = append(v.addrs, a)
					if a.Is4() {
						v.v4[binary.BigEndian.Uint32(a.AsSlice())] = j
					} else {
						v.v6[a.As16()] = j
					}
				}
				if !slices.Contains(v.svcs[j], svc) {
					v.svcs[j] = append(v.svcs[j], svc)
				}
			}
		}
		slices.SortFunc(v.addrs, netip.Addr.Compare)
		v.announcers = NewAnnouncerIndex(s.Cluster)
	})
	return v
}

// ServicesOf returns the Services whose VIPs include a.
func (s *Snapshot) ServicesOf(a netip.Addr) []*Service {
	if len(s.Cluster.Services) == 0 {
		return nil
	}
	v := s.vips()
	if i, ok := v.lookup(a); ok {
		return v.svcs[i]
	}
	return nil
}

// eachVIP calls fn with the host route of every distinct VIP, in address order.
func (s *Snapshot) eachVIP(fn func(netip.Prefix)) {
	for _, a := range s.vips().addrs {
		fn(VIPPrefix(a))
	}
}

// IsVIP reports whether p is the host route of a Service's VIP.
func (s *Snapshot) IsVIP(p netip.Prefix) bool {
	return p.IsSingleIP() && len(s.ServicesOf(p.Addr())) > 0
}

// lbPoolOf returns the LoadBalancer pool that contains p.
func (s *Snapshot) lbPoolOf(p netip.Prefix) (netip.Prefix, bool) {
	for _, pool := range s.Cluster.LBPools {
		if pool.Bits() <= p.Bits() && pool.Contains(p.Addr()) {
			return pool, true
		}
	}
	return netip.Prefix{}, false
}

// announcedVIP returns the indexes of the routes announcing VIP a (its host
// route), without the paths kept by graceful restart.
func (s *Snapshot) announcedVIP(a netip.Addr) []int {
	var out []int
	for _, i := range s.RoutesFor(VIPPrefix(a)) {
		if !s.Routes[i].Stale {
			out = append(out, i)
		}
	}
	return out
}

// announcers names the distinct origins of the routes, sorted.
func (s *Snapshot) announcers(idx []int) []string {
	var who []string
	for _, i := range idx {
		if d := s.describeOrigin(i); !slices.Contains(who, d) {
			who = append(who, d)
		}
	}
	slices.Sort(who)
	return who
}

// VIPPrefix returns a VIP as the host route (/32 or /128) that announces it.
func VIPPrefix(a netip.Addr) netip.Prefix { return netip.PrefixFrom(a, a.BitLen()) }

// Key is the Service's "namespace/name".
func (svc *Service) Key() string { return svc.Namespace + "/" + svc.Name }

// LocalTraffic reports whether externalTrafficPolicy is Local.
func (svc *Service) LocalTraffic() bool { return svc.ExternalTrafficPolicy == "Local" }

// ReadyEndpoints counts the Service's ready endpoints.
func (svc *Service) ReadyEndpoints() int {
	n := 0
	for _, e := range svc.Endpoints {
		if e.Ready {
			n++
		}
	}
	return n
}

// ReadyOn reports whether the Service has a ready endpoint on node.
func (svc *Service) ReadyOn(node string) bool {
	return slices.ContainsFunc(svc.Endpoints, func(e Endpoint) bool { return e.Ready && e.NodeName == node })
}

// readyNodes lists the nodes with a ready endpoint of the Service, sorted.
func (svc *Service) readyNodes() []string {
	var out []string
	for _, e := range svc.Endpoints {
		if e.Ready && e.NodeName != "" && !slices.Contains(out, e.NodeName) {
			out = append(out, e.NodeName)
		}
	}
	slices.Sort(out)
	return out
}

// endpointsPhrase says what the Service's endpoints are: "3 endpoints, none
// ready", "no endpoint".
func (svc *Service) endpointsPhrase() string {
	switch n := len(svc.Endpoints); {
	case n == 0:
		return "no EndpointSlice lists an endpoint"
	case svc.ReadyEndpoints() == 0:
		return fmt.Sprintf("%d endpoint(s), none ready", n)
	default:
		return fmt.Sprintf("%d ready endpoint(s) of %d", svc.ReadyEndpoints(), n)
	}
}
