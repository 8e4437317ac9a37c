package validator

import (
	"net/netip"
	"testing"
)

// TestPolicyDropNamesNodeSidePeer: a node-side dump (FRR advertised-routes,
// gobgp adj-out) names no peer; the drop names the address the ToR got it
// from, the node's next hop, never an unset one ("peer invalid IP"), and the
// route the dump read is left as it was.
func TestPolicyDropNamesNodeSidePeer(t *testing.T) {
	nodeSide := Route{Prefix: netip.MustParsePrefix("10.244.1.0/24"),
		Attributes: &Attributes{NextHop: netip.MustParseAddr("10.0.0.11"), RouterID: netip.MustParseAddr("10.0.0.11")}}
	drops := PolicyDrops("tor1", []Route{nodeSide}, nil)
	if len(drops) != 1 {
		t.Fatalf("%d drops, want 1", len(drops))
	}
	if got := drops[0].Route.Attrs().Peer; got != netip.MustParseAddr("10.0.0.11") {
		t.Errorf("the drop's peer is %v, want the next hop 10.0.0.11", got)
	}
	if nodeSide.Peer.IsValid() {
		t.Errorf("the dump's route was changed in place: peer %v", nodeSide.Peer)
	}
}
