package cilium

import (
	"net/netip"
	"slices"

	"github.com/routewarden/routewarden/validator"
)

// prefixIntents resolves the intent for one prefix (an IPv6 one: v6) that
// selects picks advertisements for: each peer's (of the advertisements in
// the prefix's family it is sent; nil where it is sent none, an intent of
// no attributes where those it is sent set none: Cilium attaches none) and what
// the peers receiving the prefix are told alike (agree). bad: an
// advertisement selecting it for one of them cannot be read.
func prefixIntents(ads []advert, peers []peerAds, v6 bool, selects func(advert) bool) (
	agreed *validator.AttributeIntent, each []*validator.AttributeIntent, bad bool) {
	each = make([]*validator.AttributeIntent, len(peers))
	var told []*validator.AttributeIntent // of the peers receiving the prefix; empty intents where none set
	for i, p := range peers {
		names := p.family(v6)
		sent := func(a advert) bool {
			_, ok := slices.BinarySearch(names, a.name)
			return ok && selects(a)
		}
		in, b := intentOf(ads, sent)
		if b {
			return nil, make([]*validator.AttributeIntent, len(peers)), true
		}
		switch {
		case in != nil:
			each[i] = in
			told = append(told, in)
		case slices.ContainsFunc(ads, sent): // sent, without attributes: Cilium attaches none
			none := &validator.AttributeIntent{}
			for _, a := range ads {
				if sent(a) {
					none.Advertisements = append(none.Advertisements, a.name)
				}
			}
			each[i] = none
			told = append(told, none)
		}
	}
	return agree(told), each, false
}

// agree is what every peer receiving a prefix is told alike: nil when none
// of them sets attributes; an attribute they are told differently is
// Disputed (not judged where the path's peer cannot be told). Its
// Advertisements are all of theirs.
func agree(told []*validator.AttributeIntent) *validator.AttributeIntent {
	var first *validator.AttributeIntent
	for _, in := range told {
		if len(in.Communities)+len(in.LargeCommunities)+len(in.LocalPrefs) > 0 {
			first = in
			break
		}
	}
	if first == nil {
		return nil
	}
	out := *first
	out.Advertisements, out.Disputed = nil, slices.Clone(first.Disputed)
	out.Separate = len(told) > 1 && !slices.ContainsFunc(told, func(in *validator.AttributeIntent) bool {
		return len(in.Advertisements) > 1
	})
	for _, in := range told {
		out.Advertisements = append(out.Advertisements, in.Advertisements...)
		out.Disputed = append(out.Disputed, in.Disputed...)
		if !slices.Equal(in.Communities, first.Communities) {
			out.Disputed = append(out.Disputed, validator.AttrCommunities)
		}
		if !slices.Equal(in.LargeCommunities, first.LargeCommunities) {
			out.Disputed = append(out.Disputed, validator.AttrLargeCommunities)
		}
		if applied(in) != applied(first) {
			out.Disputed = append(out.Disputed, validator.AttrLocalPref)
		}
	}
	sortIntent(&out)
	out.Separate = out.Separate && len(out.Advertisements) > 1
	return &out
}

// applied is the localPreference Cilium applies (the largest set), -1 for none.
func applied(in *validator.AttributeIntent) int64 {
	if len(in.LocalPrefs) == 0 {
		return -1
	}
	return int64(slices.Max(in.LocalPrefs))
}

// disputed reports whether any of g's intents has disputed attributes.
func disputed(g *validator.AdvertisedGroup) bool {
	for _, in := range []*validator.AttributeIntent{g.PodCIDR, g.PodCIDR6} {
		if in != nil && len(in.Disputed) > 0 {
			return true
		}
	}
	for _, in := range g.VIPs {
		if len(in.Disputed) > 0 {
			return true
		}
	}
	return false
}

// peerGroups maps each peer's address to its own intents (per); a peer of
// unknown address, or an address two peers told differently share, is left
// out: its paths fall back to what the peers agree on.
func peerGroups(peers []peerAds, per []validator.AdvertisedGroup) map[netip.Addr]*validator.AdvertisedGroup {
	out := map[netip.Addr]*validator.AdvertisedGroup{}
	ambiguous := map[netip.Addr]bool{}
	for i, p := range peers {
		if !p.addr.IsValid() || ambiguous[p.addr] {
			continue
		}
		if j := slices.IndexFunc(peers[:i], func(q peerAds) bool { return q.addr == p.addr }); j >= 0 {
			if !slices.Equal(peers[j].v4, p.v4) || !slices.Equal(peers[j].v6, p.v6) {
				ambiguous[p.addr] = true
				delete(out, p.addr)
			}
			continue
		}
		out[p.addr] = &per[i]
	}
	return out
}
