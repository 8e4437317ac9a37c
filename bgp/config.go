package bgp

import (
	"fmt"
	"net/netip"
	"time"
)

// Config is the collector's configuration, already validated and with secrets read.
type Config struct {
	ASN             uint32
	RouterID        netip.Addr
	ListenAddresses []string
	// ListenPort is the TCP port to accept sessions on (179 needs CAP_NET_BIND_SERVICE).
	ListenPort int32
	Neighbors  []Neighbor
	Dynamic    []DynamicRange
	// GracefulRestart enables the graceful-restart helper: a restarting peer's
	// paths are kept as stale for its restart time, at most GraceWindow.
	GracefulRestart bool
	GraceWindow     time.Duration
}

// PeerSettings apply to a static neighbor or a dynamic range.
type PeerSettings struct {
	// ASN is the peer's ASN; 0 accepts any (dynamic ranges).
	ASN      uint32
	Password string
	HoldTime time.Duration
	// MaxPrefixes per address family; 0 is unlimited.
	MaxPrefixes uint32
	// Relayed marks the peer as a ToR relaying the nodes' paths (config
	// role tor): their attributes carry validator.Attributes.Relayed.
	Relayed bool
}

// Neighbor is a static passive neighbor.
type Neighbor struct {
	Address netip.Addr
	PeerSettings
}

// DynamicRange accepts sessions from any address in Prefix.
type DynamicRange struct {
	Prefix netip.Prefix
	PeerSettings
}

// Validate reports the first problem that would make GoBGP fail or crash
// (AddDynamicNeighbor with an unknown peer group crashes the process, so ranges
// are checked here, before anything starts).
func (c Config) Validate() error {
	if c.ASN == 0 {
		return fmt.Errorf("bgp: the local ASN is required")
	}
	if !c.RouterID.Is4() {
		return fmt.Errorf("bgp: router ID %q must be an IPv4 address", c.RouterID)
	}
	if c.ListenPort <= 0 || c.ListenPort > 65535 {
		return fmt.Errorf("bgp: listen port %d is not a TCP port", c.ListenPort)
	}
	if len(c.Neighbors)+len(c.Dynamic) == 0 {
		return fmt.Errorf("bgp: no neighbors and no dynamic ranges: nobody could connect")
	}
	for i, d := range c.Dynamic {
		if !d.Prefix.IsValid() {
			return fmt.Errorf("bgp: dynamic range %d has no prefix", i)
		}
	}
	for i, n := range c.Neighbors {
		if !n.Address.IsValid() {
			return fmt.Errorf("bgp: neighbor %d has no address", i)
		}
	}
	return nil
}
