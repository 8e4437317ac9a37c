package bgp

import (
	"context"
	"fmt"
	"net/netip"
	"reflect"
	"slices"

	api "github.com/osrg/gobgp/v4/api"
)

// Reconfigure applies a new configuration to the running collector by diff:
// added neighbors and ranges are added, removed ones deleted, changed ones
// updated; every other session stays up. Changes GoBGP cannot make live (ASN,
// router ID, listen addresses and port, graceful restart) are refused.
func (c *Collector) Reconfigure(ctx context.Context, next Config) error {
	if err := next.Validate(); err != nil {
		return err
	}
	if err := next.checkPasswords(); err != nil {
		return err
	}
	c.mu.RLock()
	cur, feed := c.cfg, c.feed
	c.mu.RUnlock()
	if cur.ASN != next.ASN || cur.RouterID != next.RouterID || cur.ListenPort != next.ListenPort ||
		!slices.Equal(cur.ListenAddresses, next.ListenAddresses) || cur.GracefulRestart != next.GracefulRestart ||
		cur.GraceWindow != next.GraceWindow {
		return fmt.Errorf("bgp: asn, routerId, listen addresses and port and gracefulRestart only change with a restart")
	}
	if c.srv == nil {
		return fmt.Errorf("bgp: the collector is not running")
	}
	old := map[netip.Addr]Neighbor{}
	for _, n := range cur.Neighbors {
		old[n.Address] = n
	}
	for _, n := range next.Neighbors {
		prev, ok := old[n.Address]
		delete(old, n.Address)
		switch {
		case !ok:
			if err := c.srv.AddPeer(ctx, &api.AddPeerRequest{Peer: c.peer(n)}); err != nil {
				return fmt.Errorf("adding neighbor %s: %w", n.Address, err)
			}
		case !reflect.DeepEqual(prev, n):
			if _, err := c.srv.UpdatePeer(ctx, &api.UpdatePeerRequest{Peer: c.peer(n)}); err != nil {
				return fmt.Errorf("updating neighbor %s: %w", n.Address, err)
			}
		}
	}
	for addr := range old {
		if err := c.removeNeighbor(ctx, addr, feed); err != nil {
			return err
		}
	}
	if err := c.reconfigureRanges(ctx, cur.Dynamic, next.Dynamic, feed); err != nil {
		return err
	}
	c.mu.Lock()
	c.cfg = next
	c.static = map[netip.Addr]bool{}
	for _, n := range next.Neighbors {
		c.static[n.Address] = true
	}
	c.mu.Unlock()
	if feed != nil {
		feed.reconfigured() // takes the feed's lock, which is held before c.mu
	}
	return nil
}

// removeNeighbor deletes a static neighbor from GoBGP and its session and
// paths from the Store. It stops counting as configured first: GoBGP's last
// state event of it may come after the deletion, and onPeerState must not
// bring it back to the peers list.
func (c *Collector) removeNeighbor(ctx context.Context, addr netip.Addr, feed *routeFeed) error {
	c.setStatic(addr, false)
	if err := c.srv.DeletePeer(ctx, &api.DeletePeerRequest{Address: addr.String()}); err != nil {
		c.setStatic(addr, true)
		return fmt.Errorf("removing neighbor %s: %w", addr, err)
	}
	if feed != nil {
		feed.removed(addr)
	}
	return nil
}

func (c *Collector) setStatic(addr netip.Addr, static bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if static {
		c.static[addr] = true
	} else {
		delete(c.static, addr)
	}
}

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
			if err := c.addRange(ctx, d); err != nil {
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

// removeRange stops a dynamic range taking sessions, ends those it has (GoBGP
// refuses to delete a peer group in use) as removeNeighbor does, then deletes
// its peer group. The range stops counting as configured once GoBGP has
// deleted it, so that its peers' last state events are ignored.
func (c *Collector) removeRange(ctx context.Context, d DynamicRange, feed *routeFeed) error {
	if err := c.srv.DeleteDynamicNeighbor(ctx, &api.DeleteDynamicNeighborRequest{Prefix: d.Prefix.String(),
		PeerGroup: groupName(d)}); err != nil {
		return fmt.Errorf("removing dynamic range %s: %w", d.Prefix, err)
	}
	c.mu.Lock()
	c.cfg.Dynamic = slices.DeleteFunc(slices.Clone(c.cfg.Dynamic), func(r DynamicRange) bool { return r.Prefix == d.Prefix })
	c.mu.Unlock()
	var members []netip.Addr
	err := c.srv.ListPeer(ctx, &api.ListPeerRequest{}, func(p *api.Peer) {
		if addr, err := netip.ParseAddr(p.GetState().GetNeighborAddress()); err == nil && p.GetConf().GetPeerGroup() == groupName(d) {
			members = append(members, addr.Unmap())
		}
	})
	if err != nil {
		return fmt.Errorf("listing the sessions of dynamic range %s: %w", d.Prefix, err)
	}
	for _, addr := range members {
		if err := c.srv.DeletePeer(ctx, &api.DeletePeerRequest{Address: addr.String()}); err != nil {
			return fmt.Errorf("ending the session of %s in dynamic range %s: %w", addr, d.Prefix, err)
		}
		if feed != nil {
			feed.removed(addr)
		}
	}
	if err := c.srv.DeletePeerGroup(ctx, &api.DeletePeerGroupRequest{Name: groupName(d)}); err != nil {
		return fmt.Errorf("removing the peer group of dynamic range %s: %w", d.Prefix, err)
	}
	return nil
}

func groupName(d DynamicRange) string { return "dynamic-" + d.Prefix.String() }

// addRange adds a range's peer group, then the range: AddDynamicNeighbor with an
// unknown peer group crashes GoBGP, so the group must exist first.
func (c *Collector) addRange(ctx context.Context, d DynamicRange) error {
	if err := c.srv.AddPeerGroup(ctx, &api.AddPeerGroupRequest{PeerGroup: c.peerGroup(groupName(d), d)}); err != nil {
		return fmt.Errorf("adding the peer group of dynamic range %s: %w", d.Prefix, err)
	}
	err := c.srv.AddDynamicNeighbor(ctx, &api.AddDynamicNeighborRequest{DynamicNeighbor: &api.DynamicNeighbor{
		Prefix: d.Prefix.String(), PeerGroup: groupName(d)}})
	if err != nil {
		return fmt.Errorf("adding dynamic range %s: %w", d.Prefix, err)
	}
	return nil
}
