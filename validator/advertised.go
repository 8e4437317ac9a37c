package validator

import "net/netip"

// AdvertisedAttributes are the path attributes Cilium's BGP advertisements
// (CiliumBGPAdvertisement attributes) tell the nodes to attach to their pod
// CIDRs and Service VIPs. Cilium applies them per peer and per address
// family: a CiliumBGPClusterConfig's peers each refer to a
// CiliumBGPPeerConfig whose families select advertisements. Nodes whose
// peers select the same advertisements share a group, so the cost grows with
// the groups, not nodes × VIPs.
type AdvertisedAttributes struct {
	// NodeGroup maps a node's name to its group in Groups.
	NodeGroup map[string]int
	Groups    []AdvertisedGroup
}

// AdvertisedGroup is what a group of nodes is told to attach; a prefix
// without an intent (nil) is not judged. PodCIDR, PodCIDR6 and VIPs hold
// what every peer the prefix is sent to is told alike (AttributeIntent.
// Disputed names what they are told differently).
type AdvertisedGroup struct {
	// PodCIDR is the intent for the IPv4 pod CIDRs, PodCIDR6 for IPv6 ones.
	PodCIDR, PodCIDR6 *AttributeIntent
	VIPs              map[netip.Addr]*AttributeIntent
	// Peers are the intents of the paths sent to each Cilium peer, by its
	// peerAddress, where the group's peers are told different attributes: a
	// path whose peer is known (PeerOf) is judged against its peer's alone.
	Peers map[netip.Addr]*AdvertisedGroup
}

// AttributeIntent is what the advertisements selecting one prefix tell a
// node to attach. It exists only where at least one of them sets attributes.
type AttributeIntent struct {
	// Communities (standard, well-known ones by value, "ASN:VALUE") and
	// LargeCommunities ("GLOBAL:LOCAL1:LOCAL2") are the union over the
	// advertisements, sorted and unique.
	Communities      []string
	LargeCommunities []string
	// LocalPrefs are the localPreference values set (sorted, unique): more
	// than one when the advertisements disagree, and then Cilium applies
	// the largest, so the largest is expected. Empty: none set.
	LocalPrefs []uint32
	// Advertisements name every CiliumBGPAdvertisement selecting the
	// prefix, sorted: more than one is an overlap (cilium/cilium#35721)
	// unless Separate or Disputed.
	Advertisements []string
	// Separate says the Advertisements are different peers', each sent one
	// (they agree on the attributes): no overlap.
	Separate bool
	// Disputed names the attributes (AttrCommunities, AttrLargeCommunities,
	// AttrLocalPref) that the node's peers receiving the prefix are told
	// differently (their CiliumBGPPeerConfig families select different
	// advertisements): where the path's peer cannot be told, they are not
	// judged, and the hint says so.
	Disputed []string
}

// The attributes an AttributeIntent judges, as Disputed names them.
const (
	AttrCommunities      = "communities"
	AttrLargeCommunities = "large communities"
	AttrLocalPref        = "local preference"
)

// PodCIDR returns the intent for the node's IPv4 pod CIDRs, nil if none.
func (a *AdvertisedAttributes) PodCIDR(node string) *AttributeIntent {
	if g := a.group(node); g != nil {
		return g.PodCIDR
	}
	return nil
}

// VIP returns the intent for a Service VIP the node announces, nil if none.
func (a *AdvertisedAttributes) VIP(node string, vip netip.Addr) *AttributeIntent {
	if g := a.group(node); g != nil {
		return g.VIPs[vip]
	}
	return nil
}

func (a *AdvertisedAttributes) group(node string) *AdvertisedGroup {
	if a == nil {
		return nil
	}
	if i, ok := a.NodeGroup[node]; ok && i >= 0 && i < len(a.Groups) {
		return &a.Groups[i]
	}
	return nil
}

// intent returns what route r (a pod CIDR of the group's node, or a VIP) is
// expected to carry: its peer's intent where the group holds intents per
// peer and the path's peer is known, else what all its peers agree on.
func (a *AdvertisedAttributes) intent(g *AdvertisedGroup, r Route, podCIDR bool) *AttributeIntent {
	if pg := g.Peers[a.PeerOf(g, r)]; pg != nil {
		g = pg
	}
	switch {
	case !podCIDR:
		return g.VIPs[r.Prefix.Addr()]
	case r.Prefix.Addr().Is6():
		return g.PodCIDR6
	}
	return g.PodCIDR
}

// PeerOf returns the address of the Cilium peer (of group g's peers) that
// route r was sent to: the address the node sent it to (Attributes.Local,
// its session's local address), when the group holds that peer's intents;
// else invalid.
func (a *AdvertisedAttributes) PeerOf(g *AdvertisedGroup, r Route) netip.Addr {
	if l := r.Attrs().Local; l.IsValid() && g.Peers[l] != nil {
		return l
	}
	return netip.Addr{}
}
