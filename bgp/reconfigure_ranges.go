package bgp

import (
	"context"
	"fmt"
	"net/netip"
	"reflect"
	"strings"

	api "github.com/osrg/gobgp/v4/api"
)

// reconfigureRanges keeps ranges that did not change (and their sessions),
// updates the peer group of a changed range and adds or removes the others.
// A range's peer group is named after its prefix, so its name survives reordering.
func (c *Collector) reconfigureRanges(ctx context.Context, cur, next []DynamicRange, feed *routeFeed) error {
	old := map[netip.Prefix]DynamicRange{}
	for _, d := range cur {
		old[d.Prefix] = d
	}
	for _, d := range next {
		prev, ok := old[d.Prefix]
		delete(old, d.Prefix)
		switch {
		case !ok:
			c.setRange(d, true)
			if err := c.addRange(ctx, d); err != nil {
				c.setRange(d, false)
				return err
			}
		case !reflect.DeepEqual(prev, d):
			if _, err := c.srv.UpdatePeerGroup(ctx, &api.UpdatePeerGroupRequest{PeerGroup: c.peerGroup(groupName(d), d)}); err != nil {
				return fmt.Errorf("updating dynamic range %s: %w", d.Prefix, err)
			}
		}
	}
	for _, d := range old {
		if err := c.removeRange(ctx, d, feed); err != nil {
			return err
		}
	}
	return nil
}

func groupName(d DynamicRange) string { return "dynamic-" + d.Prefix.String() }

// addRange adds a range's peer group, then the range: AddDynamicNeighbor with an
// unknown peer group crashes GoBGP, so the group must exist first. A group
// left from a removal that failed halfway (removeRange) is updated instead.
func (c *Collector) addRange(ctx context.Context, d DynamicRange) error {
	group := c.peerGroup(groupName(d), d)
	err := c.srv.AddPeerGroup(ctx, &api.AddPeerGroupRequest{PeerGroup: group})
	if err != nil && strings.Contains(err.Error(), "existing peer-group") {
		_, err = c.srv.UpdatePeerGroup(ctx, &api.UpdatePeerGroupRequest{PeerGroup: group})
	}
	if err != nil {
		return fmt.Errorf("adding the peer group of dynamic range %s: %w", d.Prefix, err)
	}
	err = c.srv.AddDynamicNeighbor(ctx, &api.AddDynamicNeighborRequest{DynamicNeighbor: &api.DynamicNeighbor{
		Prefix: d.Prefix.String(), PeerGroup: groupName(d)}})
	if err != nil {
		return fmt.Errorf("adding dynamic range %s: %w", d.Prefix, err)
	}
	return nil
}

// removeRange stops a dynamic range taking sessions (from then on it is no
// longer configured), ends the sessions it has as removeNeighbor does, then
// deletes its peer group, which GoBGP refuses while the group has members.
// GoBGP creates a range's members and serves these calls on one goroutine,
// so once the range is deleted no member joins between listing and deleting.
func (c *Collector) removeRange(ctx context.Context, d DynamicRange, feed *routeFeed) error {
	if err := c.srv.DeleteDynamicNeighbor(ctx, &api.DeleteDynamicNeighborRequest{Prefix: d.Prefix.String(),
		PeerGroup: groupName(d)}); err != nil {
		return fmt.Errorf("removing dynamic range %s: %w", d.Prefix, err)
	}
	c.setRange(d, false)
	if err := c.endRangeSessions(ctx, d, feed); err != nil {
		return err
	}
	if err := c.srv.DeletePeerGroup(ctx, &api.DeletePeerGroupRequest{Name: groupName(d)}); err != nil {
		return fmt.Errorf("removing the peer group of dynamic range %s: %w", d.Prefix, err)
	}
	return nil
}

// endRangeSessions deletes every GoBGP peer of a range's peer group, with its
// session and its paths in the Store. A member GoBGP dropped by itself after
// the listing (its session ended) counts as deleted.
func (c *Collector) endRangeSessions(ctx context.Context, d DynamicRange, feed *routeFeed) error {
	var members []netip.Addr
	err := c.srv.ListPeer(ctx, &api.ListPeerRequest{}, func(p *api.Peer) {
		addr, err := netip.ParseAddr(p.GetState().GetNeighborAddress())
		if err == nil && p.GetConf().GetPeerGroup() == groupName(d) {
			members = append(members, addr.Unmap())
		}
	})
	if err != nil {
		return fmt.Errorf("listing the sessions of dynamic range %s: %w", d.Prefix, err)
	}
	for _, addr := range members {
		err := c.srv.DeletePeer(ctx, &api.DeletePeerRequest{Address: addr.String()})
		if err != nil && !strings.Contains(err.Error(), "can't delete a peer configuration") {
			return fmt.Errorf("ending the session of %s in dynamic range %s: %w", addr, d.Prefix, err)
		}
		if feed != nil {
			feed.removed(addr)
		}
	}
	return nil
}
