package cilium

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/validator"
)

// peerObjects: node1 peers with routewarden (192.0.2.1, CiliumBGPPeerConfig
// rw: IPv4 sends pods-rw, IPv6 pods-v6) and with a ToR (192.0.2.2,
// CiliumBGPPeerConfig tor: IPv4 sends pods-tor). The attributes of
// pods-tor are replaced by torAttrs.
func peerObjects(torAttrs string) string {
	return strings.ReplaceAll(`apiVersion: cilium.io/v2
kind: CiliumBGPClusterConfig
metadata: {name: bgp}
spec:
  nodeSelector: {matchLabels: {rack: a}}
  bgpInstances:
  - name: main
    localASN: 65010
    peers:
    - {name: routewarden, peerASN: 65000, peerAddress: 192.0.2.1, peerConfigRef: {name: rw}}
    - {name: tor, peerASN: 65001, peerAddress: 192.0.2.2, peerConfigRef: {name: tor}}
---
apiVersion: cilium.io/v2
kind: CiliumBGPPeerConfig
metadata: {name: rw}
spec:
  families:
  - {afi: ipv4, safi: unicast, advertisements: {matchLabels: {to: rw}}}
  - {afi: ipv6, safi: unicast, advertisements: {matchLabels: {to: rw6}}}
---
apiVersion: cilium.io/v2
kind: CiliumBGPPeerConfig
metadata: {name: tor}
spec: {families: [{afi: ipv4, safi: unicast, advertisements: {matchLabels: {to: tor}}}]}
---
apiVersion: cilium.io/v2
kind: CiliumBGPAdvertisement
metadata: {name: pods-rw, labels: {to: rw}}
spec:
  advertisements:
  - {advertisementType: PodCIDR, attributes: {communities: {standard: ["65010:100"], large: ["65010:1:1"]}}}
---
apiVersion: cilium.io/v2
kind: CiliumBGPAdvertisement
metadata: {name: pods-tor, labels: {to: tor}}
spec:
  advertisements:
  - {advertisementType: PodCIDR, attributes: TOR}
---
apiVersion: cilium.io/v2
kind: CiliumBGPAdvertisement
metadata: {name: pods-v6, labels: {to: rw6}}
spec:
  advertisements:
  - {advertisementType: PodCIDR, attributes: {communities: {standard: ["65010:600"]}}}
---
apiVersion: v1
kind: Node
metadata: {name: node1, labels: {rack: a}}
`, "TOR", torAttrs)
}

// TestAdvertisedPerPeer: the intent of a node's pod CIDRs comes per peer and
// per family; where its peers are told different attributes, the group
// holds each peer's intent and what they agree on, with the rest Disputed.
func TestAdvertisedPerPeer(t *testing.T) {
	rw, tor := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	for _, tc := range []struct {
		name, torAttrs string
		v4, v6         string // the agreed intents
		peers          map[netip.Addr]string
	}{
		{name: "peers told alike", torAttrs: `{communities: {standard: ["65010:100"], large: ["65010:1:1"]}}`,
			v4: "[65010:100] [65010:1:1] pref [] by [pods-rw pods-tor] disputed []",
			v6: "[65010:600] [] pref [] by [pods-v6] disputed []"},
		{name: "peers told different communities", torAttrs: `{communities: {standard: ["65010:200"], large: ["65010:1:1"]}}`,
			v4: "[65010:100] [65010:1:1] pref [] by [pods-rw pods-tor] disputed [communities]",
			v6: "[65010:600] [] pref [] by [pods-v6] disputed []",
			peers: map[netip.Addr]string{rw: "[65010:100] [65010:1:1] pref [] by [pods-rw] disputed []",
				tor: "[65010:200] [65010:1:1] pref [] by [pods-tor] disputed []"}},
		{name: "one peer told none", torAttrs: `{}`,
			v4: "[65010:100] [65010:1:1] pref [] by [pods-rw pods-tor] disputed [communities large communities]",
			v6: "[65010:600] [] pref [] by [pods-v6] disputed []",
			peers: map[netip.Addr]string{rw: "[65010:100] [65010:1:1] pref [] by [pods-rw] disputed []",
				tor: "[] [] pref [] by [pods-tor] disputed []"}}, // sent it without attributes: expected none, as agree says
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &Objects{}
			if err := o.Decode("objects.yaml", []byte(peerObjects(tc.torAttrs))); err != nil {
				t.Fatal(err)
			}
			c, err := o.Cluster(ClusterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			g := c.Advertised.Groups[c.Advertised.NodeGroup["node1"]]
			if got := peerIntentString(g.PodCIDR); got != tc.v4 {
				t.Errorf("IPv4: %s, want %s", got, tc.v4)
			}
			if got := peerIntentString(g.PodCIDR6); got != tc.v6 {
				t.Errorf("IPv6: %s, want %s", got, tc.v6)
			}
			if len(g.Peers) != len(tc.peers) {
				t.Errorf("%d peers' own intents, want %d", len(g.Peers), len(tc.peers))
			}
			for peer, want := range tc.peers {
				if got := peerIntentString(g.Peers[peer].PodCIDR); got != want {
					t.Errorf("peer %s: %s, want %s", peer, got, want)
				}
			}
		})
	}
}

func peerIntentString(in *validator.AttributeIntent) string {
	if in == nil {
		return "<nil>"
	}
	return intentString(in) + " disputed [" + strings.Join(in.Disputed, " ") + "]"
}

// TestAgreeSeparate: peers each sent one advertisement, told alike, are no
// overlap; one peer sent two is.
func TestAgreeSeparate(t *testing.T) {
	one := func(names ...string) *validator.AttributeIntent {
		return &validator.AttributeIntent{Communities: []string{"65010:100"}, Advertisements: names}
	}
	for _, tc := range []struct {
		name string
		told []*validator.AttributeIntent
		want bool
	}{
		{"two peers, one each", []*validator.AttributeIntent{one("a"), one("b")}, true},
		{"two peers, the same one", []*validator.AttributeIntent{one("a"), one("a")}, false},
		{"one peer, two", []*validator.AttributeIntent{one("a", "b")}, false},
		{"two peers, one of them two", []*validator.AttributeIntent{one("a", "b"), one("c")}, false},
	} {
		if got := agree(tc.told).Separate; got != tc.want {
			t.Errorf("%s: Separate %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestAdvertisedRacksShare: racks whose nodes peer with a ToR of their own
// address, told alike, are groups of their own (each with its ToR's
// address) sharing one computation of their intents.
func TestAdvertisedRacksShare(t *testing.T) {
	o := &Objects{}
	if err := o.Decode("racks.yaml", []byte(rackObjects(2, 4, 4))); err != nil {
		t.Fatal(err)
	}
	a, err := o.advertisedAttributes(nil)
	if err != nil {
		t.Fatal(err)
	}
	vip, rw := netip.MustParseAddr("172.16.0.1"), netip.MustParseAddr("192.0.2.1")
	g0, g1 := a.Groups[a.NodeGroup["node0"]], a.Groups[a.NodeGroup["node1"]]
	if len(a.Groups) != 2 || g0.VIPs[vip] == nil || g0.VIPs[vip] != g1.VIPs[vip] {
		t.Fatalf("%d groups, VIP intents %p %p: want 2 groups sharing one", len(a.Groups), g0.VIPs[vip], g1.VIPs[vip])
	}
	for r, g := range []validator.AdvertisedGroup{g0, g1} {
		tor := netip.AddrFrom4([4]byte{10, byte(r), 0, 1})
		if got := peerIntentString(g.Peers[tor].VIPs[vip]); got != "[65010:100 65010:102] [] pref [] by [ad0 ad2] disputed []" {
			t.Errorf("rack %d, its ToR %s: %s", r, tor, got)
		}
		if got := peerIntentString(g.Peers[rw].VIPs[vip]); got != "[65010:100] [] pref [] by [ad0] disputed []" {
			t.Errorf("rack %d, routewarden: %s", r, got)
		}
	}
}
