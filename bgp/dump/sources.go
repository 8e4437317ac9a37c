package dump

import (
	"net/netip"

	"github.com/routewarden/routewarden/validator"
)

// Source is one command whose output routewarden reads: its format, the
// path attributes it cannot show (validator.Attributes.Unseen on every route
// read from it) and the command of the same router that shows them.
type Source struct {
	Format  string
	Command string
	Unseen  validator.AttrSet
	// Fuller is the command to run instead for what this one cannot show;
	// empty when it shows everything routewarden judges.
	Fuller string
}

// What FRR 8.4 prints (measured with Debian's frr, hack/dump-variants/gen.sh):
// `show bgp … json` has next hop, AS path and locPrf (when the path carries
// LOCAL_PREF) but no communities; `json detail` adds them; received-routes
// and advertised-routes print no communities either, received-routes prints
// the locPrf of the router's inbound policy, and advertised-routes the AS
// path before the sender prepends its own AS.
const (
	frrFull     = "vtysh -c 'show bgp ipv4 unicast json detail' (or ipv6)"
	noCommunity = validator.UnseenCommunities | validator.UnseenLargeCommunities
)

// Sources lists every command routewarden reads, by format.
var Sources = []Source{
	{Format: "gobgp", Command: "gobgp global rib -j, gobgp neighbor ADDR adj-in -j"},
	{Format: "frr", Command: "show bgp ipv4 unicast json", Unseen: noCommunity, Fuller: frrFull},
	{Format: "frr", Command: "show bgp ipv4 unicast json detail"},
	{Format: "frr", Command: "show bgp neighbor ADDR received-routes json", Unseen: frrReceivedUnseen,
		Fuller: "a BMP pre-policy view of the router (routewarden run), or " + frrFull + " (after its policy)"},
	{Format: "frr", Command: "show bgp neighbor ADDR advertised-routes json", Unseen: noCommunity | validator.UnseenASPath,
		Fuller: frrFull + " on the router that received them"},
	{Format: "bird", Command: "birdc show route all"},
	{Format: "bird", Command: "birdc show route", Unseen: birdPlainUnseen,
		Fuller: "birdc show route all"},
	{Format: "mrt", Command: "MRT TABLE_DUMP_V2 (gobgpd, BIRD, FRR)"},
}

// Hint returns the command that shows what routes of format (as Read names
// it) with the attributes unseen left out, "" when none is needed.
func Hint(format string, unseen validator.AttrSet) string {
	if unseen == 0 {
		return ""
	}
	for _, s := range Sources {
		if s.Format == format && s.Unseen == unseen {
			return s.Fuller
		}
	}
	return ""
}

// Option changes how a dump is read.
type Option func(*options)

type options struct {
	peer netip.Addr
}

// WithPeer names the neighbor a dump's paths came from, for outputs that do
// not name it (FRR's received-routes json): the address `show bgp neighbor
// ADDR received-routes json` was run with, or for advertised-routes the
// sender's address on the session.
func WithPeer(peer netip.Addr) Option { return func(o *options) { o.peer = peer.Unmap() } }
