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
//
// A neighbor or range counts as configured (configuredPeer, configuredSession) from
// just before GoBGP adds it until just before GoBGP deletes it: GoBGP reports
// a deleted peer's last state, and may deliver a Peer Up from just before the
// deletion, after it, and neither may bring the peer back.
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
			if err := c.addNeighbor(ctx, n); err != nil {
				return err
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

// addNeighbor adds a static neighbor, configured from just before.
func (c *Collector) addNeighbor(ctx context.Context, n Neighbor) error {
	c.setStatic(n.Address, true)
	if err := c.srv.AddPeer(ctx, &api.AddPeerRequest{Peer: c.peer(n)}); err != nil {
		c.setStatic(n.Address, false)
		return fmt.Errorf("adding neighbor %s: %w", n.Address, err)
	}
	return nil
}

// removeNeighbor deletes a static neighbor from GoBGP and its session and
// paths from the Store; it is no longer configured from just before.
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

// setRange adds a dynamic range to the configuration in force, or takes it
// out, ahead of the rest of a reconfiguration (Reconfigure).
func (c *Collector) setRange(d DynamicRange, present bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ranges := slices.DeleteFunc(slices.Clone(c.cfg.Dynamic), func(r DynamicRange) bool { return r.Prefix == d.Prefix })
	if present {
		ranges = append(ranges, d)
	}
	c.cfg.Dynamic = ranges
}
