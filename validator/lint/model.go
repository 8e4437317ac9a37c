// Package lint cross-checks routewarden's configuration with Cilium's BGP
// objects (BGP control plane v2 and v1, the legacy speaker) and IPAM settings,
// and reports every problem at once. It is pure like its parent, and reads
// the objects as the Cilium model (package cilium) decoded them.
package lint

import (
	"net/netip"
	"time"

	"github.com/routewarden/routewarden/cilium"
	"github.com/routewarden/routewarden/validator"
)

// Input is everything the checks look at.
type Input struct {
	Collector Collector
	IPAMMode  validator.IPAMMode
	PodRanges []netip.Prefix
	// Cilium are the objects given: Cilium's BGP objects and cilium-config,
	// and the Nodes and Services that let the checks tell whether selectors
	// select anything; nil when none were.
	Cilium *cilium.Objects
	// Legacy is the legacy speaker's bgp-config (cilium.Objects.LegacySpeaker).
	Legacy *cilium.LegacyConfig
}

// Collector is routewarden as the Cilium nodes should see it.
type Collector struct {
	Addresses []netip.Addr
	ASN       uint32
	// GraceWindow is how long routewarden keeps graceful-restart stale paths.
	GraceWindow     time.Duration
	GracefulRestart bool
	Where           string
}
