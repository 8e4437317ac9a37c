package wire_test

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/routewarden/routewarden/bgp/bgptest"
	"github.com/routewarden/routewarden/bgp/wire"
)

var attrs = bgptest.Attrs{NextHop: netip.MustParseAddr("10.0.0.11"), NextHop6: netip.MustParseAddr("fd00::11"),
	ASPath: []uint32{65010, 4200000000}, LocalPref: 100}

// TestDecodeRegularUpdates: well-formed UPDATEs, as packed by bgptest, decode
// to their prefixes and attributes, and none is irregular.
func TestDecodeRegularUpdates(t *testing.T) {
	prefixes := []netip.Prefix{netip.MustParsePrefix("10.244.1.0/24"), netip.MustParsePrefix("10.244.2.128/25"),
		netip.MustParsePrefix("fd00:10:244:1::/64")}
	msgs, err := bgptest.PackUpdates(prefixes, attrs)
	if err != nil {
		t.Fatal(err)
	}
	msgs = append(msgs, bgptest.Withdraws(prefixes, attrs)...)
	msgs = append(msgs, bgptest.EndOfRIB(false), bgptest.EndOfRIB(true))
	var got []string
	var u wire.Update
	for _, m := range msgs {
		if err := u.Decode(m, wire.Options{}); err != nil {
			t.Fatalf("decoding %x: %v", m, err)
		}
		if u.Irregular != "" {
			t.Errorf("a well-formed UPDATE is irregular: %s", u.Irregular)
		}
		for _, n := range u.Announced {
			got = append(got, fmt.Sprintf("+%s via %s %v", n.Prefix, u.NextHop, u.ASPath))
		}
		for _, n := range u.MPAnnounced {
			got = append(got, fmt.Sprintf("+%s via %s %v", n.Prefix, u.MPNextHop, u.ASPath))
		}
		for _, n := range append(u.Withdrawn, u.MPWithdrawn...) {
			got = append(got, "-"+n.Prefix.String())
		}
		for _, f := range u.EoR {
			got = append(got, "eor "+f)
		}
	}
	want := []string{"+10.244.1.0/24 via 10.0.0.11 [65010 4200000000]", "+10.244.2.128/25 via 10.0.0.11 [65010 4200000000]",
		"+fd00:10:244:1::/64 via fd00::11 [65010 4200000000]", "-10.244.1.0/24", "-10.244.2.128/25",
		"-fd00:10:244:1::/64", "eor ipv4-unicast", "eor ipv6-unicast"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("decoded\n%q\nwant\n%q", got, want)
	}
}

// TestDecodeFlagsWhatASpeakerReadsOtherwise: every malformed UPDATE of the
// reliability tests, and every other UPDATE RFC 7606 or RFC 6793 has a
// speaker read in its own way, fails to decode or is irregular (so the
// collector reads it GoBGP's way); only the oversized one, well-formed but
// for its length, is regular.
func TestDecodeFlagsWhatASpeakerReadsOtherwise(t *testing.T) {
	p := netip.MustParsePrefix("10.244.1.0/24")
	origin := bgptest.Attr(bgptest.FlagTransitive, bgptest.AttrOrigin, []byte{0})
	asPath := bgptest.Attr(bgptest.FlagTransitive, bgptest.AttrASPath, bgptest.ASPathValue([]uint32{65010}))
	nextHop := func(a string) []byte {
		return bgptest.Attr(bgptest.FlagTransitive, bgptest.AttrNextHop, netip.MustParseAddr(a).AsSlice())
	}
	nlri := bgptest.NLRI(p, false, 0)
	cat := func(parts ...[]byte) (b []byte) {
		for _, x := range parts {
			b = append(b, x...)
		}
		return b
	}
	cases := map[string][]byte{
		"duplicate AS_PATH": bgptest.Update(nil, cat(origin, asPath, asPath, nextHop("10.0.0.11")), nlri),
		"AS4_PATH":          bgptest.Update(nil, cat(origin, asPath, nextHop("10.0.0.11"), bgptest.Attr(0xC0, 17, bgptest.ASPathValue([]uint32{65010}))), nlri),
		"confederation segment": bgptest.Update(nil, cat(origin,
			bgptest.Attr(bgptest.FlagTransitive, bgptest.AttrASPath, []byte{3, 1, 0, 0, 0xfd, 0xf2}), nextHop("10.0.0.11")), nlri),
		"next hop 0.0.0.1":       bgptest.Update(nil, cat(origin, asPath, nextHop("0.0.0.1")), nlri),
		"multicast next hop":     bgptest.Update(nil, cat(origin, asPath, nextHop("224.0.0.1")), nlri),
		"MED of 3 bytes":         bgptest.Update(nil, cat(origin, asPath, nextHop("10.0.0.11"), bgptest.Attr(0x80, 4, []byte{0, 0, 1})), nlri),
		"missing ORIGIN":         bgptest.Update(nil, cat(asPath, nextHop("10.0.0.11")), nlri),
		"communities of 5 bytes": bgptest.Update(nil, cat(origin, asPath, nextHop("10.0.0.11"), bgptest.Attr(0xC0, 8, []byte{1, 2, 3, 4, 5})), nlri),
	}
	for _, k := range bgptest.Kinds {
		cases[k.String()] = bgptest.Broken(k, p, attrs)
	}
	for name, m := range cases {
		t.Run(name, func(t *testing.T) {
			var u wire.Update
			err := u.Decode(m, wire.Options{})
			regular := err == nil && u.Irregular == ""
			if want := name == bgptest.OversizedMessage.String(); regular != want {
				t.Errorf("regular: %v (error %v, irregular %q), want %v", regular, err, u.Irregular, want)
			}
		})
	}
}
