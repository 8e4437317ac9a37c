package cilium

import (
	"net/netip"
	"slices"
	"strings"
)

// peerAds is what Cilium sends one BGP peer of a node: the
// CiliumBGPAdvertisements its CiliumBGPPeerConfig's families select, per
// address family (names sorted).
type peerAds struct {
	addr   netip.Addr // the peer's peerAddress; invalid when unset (auto-discovery)
	v4, v6 []string
}

// family returns the advertisements sent to the peer in the family of an
// IPv6 (v6) or IPv4 prefix.
func (p peerAds) family(v6 bool) []string {
	if v6 {
		return p.v6
	}
	return p.v4
}

// nodePeers returns the BGP peers of a node with these labels (of the
// CiliumBGPClusterConfigs selecting it) and what each is sent, sorted by
// address; peers sent nothing are left out. Without any CiliumBGPPeerConfig
// among the objects, every advertisement counts for one peer of unknown
// address in both families, as for the VIP announcers.
func (o *Objects) nodePeers(labels map[string]string) []peerAds {
	if len(o.BGPPeerCfgs) == 0 {
		var all []string
		for _, s := range o.BGPAdverts {
			all = append(all, s.Object.Metadata.Name)
		}
		slices.Sort(all)
		all = slices.Compact(all)
		if len(all) == 0 {
			return nil
		}
		return []peerAds{{v4: all, v6: all}}
	}
	var out []peerAds
	for _, cc := range o.BGPClusterCfgs {
		if !cc.Object.Spec.NodeSelector.Matches(labels) {
			continue
		}
		for _, in := range cc.Object.Spec.BGPInstances {
			for _, p := range in.Peers {
				if p.PeerConfigRef == nil {
					continue
				}
				pa := peerAds{v4: o.familyAdverts(p.PeerConfigRef.Name, "ipv4"), v6: o.familyAdverts(p.PeerConfigRef.Name, "ipv6")}
				if p.PeerAddress != nil {
					pa.addr = p.PeerAddress.Addr.Unmap()
				}
				if len(pa.v4)+len(pa.v6) > 0 {
					out = append(out, pa)
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b peerAds) int { return a.addr.Compare(b.addr) })
	return out
}

// familyAdverts names the CiliumBGPAdvertisements that the unicast family
// afi of the CiliumBGPPeerConfig named name selects, sorted.
func (o *Objects) familyAdverts(name, afi string) []string {
	var names []string
	for _, pc := range o.BGPPeerCfgs {
		if pc.Object.Metadata.Name != name {
			continue
		}
		for _, f := range pc.Object.Spec.Families {
			if f.AFI != afi || f.SAFI != "" && f.SAFI != "unicast" || f.Advertisements == nil {
				continue
			}
			sel := f.Advertisements
			for _, s := range o.BGPAdverts {
				if sel.Matches(s.Object.Metadata.Labels) {
					names = append(names, s.Object.Metadata.Name)
				}
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// peersKey identifies what a node's peers are sent, in their order: with
// their addresses (withAddr), to group nodes alike; without, to share the
// intents between groups whose peers are told alike (a rack's ToR has an
// address of its own).
func peersKey(peers []peerAds, withAddr bool) string {
	var b strings.Builder
	for _, p := range peers {
		if withAddr {
			b.WriteString(p.addr.String())
		}
		b.WriteString("\x01" + strings.Join(p.v4, "\x00") + "\x01" + strings.Join(p.v6, "\x00") + "\x02")
	}
	return b.String()
}
