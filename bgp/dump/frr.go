package dump

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"github.com/routewarden/routewarden/validator"
)

// frrTable is `show bgp ipv4|ipv6 unicast json`.
type frrTable struct {
	Routes map[string][]frrPath `json:"routes"`
}

type frrPath struct {
	Network  string `json:"network"`
	PeerID   string `json:"peerId"`
	Path     string `json:"path"`
	Stale    bool   `json:"stale"`
	PathID   uint32 `json:"remotePathId"`
	NextHops []struct {
		IP    string `json:"ip"`
		Scope string `json:"scope"`
	} `json:"nexthops"`
	Community      *frrCommunities `json:"community"`
	LargeCommunity *frrCommunities `json:"largeCommunity"`
	// LocPrf is LOCAL_PREF, printed when the path carries it.
	LocPrf *uint32 `json:"locPrf"`
}

// frrCommunities are FRR's community and largeCommunity objects.
type frrCommunities struct {
	List []string `json:"list"`
}

func readFRR(name string, r *bufio.Reader) ([]validator.Route, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var t frrTable
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, jsonError(name, data, err, "FRR's show bgp ipv4|ipv6 unicast json: {\"routes\": {prefix: [paths]}}")
	}
	if t.Routes == nil && !strings.Contains(string(data), `"routes"`) {
		return nil, fmt.Errorf("%s: JSON path $.routes: missing (expected FRR's show bgp ipv4|ipv6 unicast json)", name)
	}
	keys := make([]string, 0, len(t.Routes))
	for k := range t.Routes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var routes []validator.Route
	for _, key := range keys {
		for i, p := range t.Routes[key] {
			rt, err := p.route(key)
			if err != nil {
				return nil, fmt.Errorf("%s: JSON path $.routes[%q][%d]: %w", name, key, i, err)
			}
			routes = append(routes, rt)
		}
	}
	return routes, nil
}

func (p frrPath) route(key string) (validator.Route, error) {
	pf, err := netip.ParsePrefix(key)
	if err != nil {
		return validator.Route{}, fmt.Errorf("%q is not a prefix", key)
	}
	rt := validator.Route{Prefix: pf.Masked(), Attributes: &validator.Attributes{}, Stale: p.Stale, PathID: p.PathID}
	if rt.Peer, err = parseAddr(p.PeerID); err != nil {
		return rt, fmt.Errorf("peerId: %w", err)
	}
	for j, nh := range p.NextHops {
		if nh.Scope == "link-local" && rt.NextHop.IsValid() {
			continue
		}
		a, err := parseAddr(nh.IP)
		if err != nil {
			return rt, fmt.Errorf("nexthops[%d].ip: %w", j, err)
		}
		if !rt.NextHop.IsValid() || rt.NextHop.IsLinkLocalUnicast() {
			rt.NextHop = a
		}
	}
	for _, f := range strings.Fields(p.Path) {
		if as, err := strconv.ParseUint(strings.Trim(f, "{}()[],"), 10, 32); err == nil {
			rt.ASPath = append(rt.ASPath, uint32(as))
		}
	}
	if p.Community != nil {
		rt.Communities = p.Community.List
	}
	if p.LargeCommunity != nil {
		rt.LargeCommunities = p.LargeCommunity.List
	}
	if p.LocPrf != nil {
		rt.LocalPref, rt.HasLocalPref = *p.LocPrf, true
	}
	return rt, nil
}
