package validator

import "net/netip"

// AdvertisedAttributes are the path attributes Cilium's BGP advertisements
// (CiliumBGPAdvertisement attributes) tell the nodes to attach to their pod
// CIDRs and Service VIPs. Nodes whose peers select the same advertisements
// share a group, so the cost grows with the groups, not nodes × VIPs.
type AdvertisedAttributes struct {
	// NodeGroup maps a node's name to its group in Groups.
	NodeGroup map[string]int
	Groups    []AdvertisedGroup
}

// AdvertisedGroup is what a group of nodes is told to attach; a prefix
// without an intent (nil) is not judged.
type AdvertisedGroup struct {
	PodCIDR *AttributeIntent
	VIPs    map[netip.Addr]*AttributeIntent
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
	// prefix, sorted: more than one is an overlap (cilium/cilium#35721).
	Advertisements []string
}

// PodCIDR returns the intent for the node's pod CIDRs, nil if none.
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
