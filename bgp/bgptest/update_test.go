package bgptest

import (
	"net/netip"
	"testing"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

func prefixes(n int, v6 bool) []netip.Prefix {
	out := make([]netip.Prefix, n)
	for i := range out {
		if v6 {
			out[i] = netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfd, 0, 0x10, 0x44, byte(i >> 8), byte(i)}), 64)
		} else {
			out[i] = netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 8), byte(i), 0}), 24)
		}
	}
	return out
}

// decoded is what GoBGP's own parser finds in packed messages.
type decoded struct {
	prefixes  map[string]bool
	nextHops  map[string]bool
	ids       map[uint32]bool
	localPref map[uint32]bool
}

func decode(t *testing.T, msgs [][]byte, addPath bool) decoded {
	t.Helper()
	opt := &bgp.MarshallingOption{}
	if addPath {
		opt.AddPath = map[bgp.Family]bgp.BGPAddPathMode{bgp.RF_IPv4_UC: bgp.BGP_ADD_PATH_BOTH,
			bgp.RF_IPv6_UC: bgp.BGP_ADD_PATH_BOTH}
	}
	d := decoded{prefixes: map[string]bool{}, nextHops: map[string]bool{}, ids: map[uint32]bool{},
		localPref: map[uint32]bool{}}
	for i, m := range msgs {
		if len(m) > MaxMessage {
			t.Fatalf("message %d has %d bytes", i, len(m))
		}
		msg, err := bgp.ParseBGPMessage(m, opt)
		if err != nil {
			t.Fatalf("GoBGP cannot parse message %d: %v", i, err)
		}
		u := msg.Body.(*bgp.BGPUpdate)
		if ok, err := bgp.ValidateUpdateMsg(u, map[bgp.Family]bgp.BGPAddPathMode{bgp.RF_IPv4_UC: 0,
			bgp.RF_IPv6_UC: 0}, true, false, true); !ok && len(u.NLRI) > 0 {
			t.Fatalf("message %d is not a valid UPDATE: %v", i, err)
		}
		add := func(ps ...bgp.PathNLRI) {
			for _, p := range ps {
				d.prefixes[p.NLRI.String()] = true
				d.ids[p.ID] = true
			}
		}
		for _, n := range u.NLRI {
			add(n)
		}
		for _, w := range u.WithdrawnRoutes {
			add(w)
		}
		for _, a := range u.PathAttributes {
			switch a := a.(type) {
			case *bgp.PathAttributeNextHop:
				d.nextHops[a.Value.String()] = true
			case *bgp.PathAttributeMpReachNLRI:
				d.nextHops[a.Nexthop.String()] = true
				add(a.Value...)
			case *bgp.PathAttributeMpUnreachNLRI:
				add(a.Value...)
			case *bgp.PathAttributeLocalPref:
				d.localPref[a.Value] = true
			}
		}
	}
	return d
}

// TestPackUpdates: packed announcements and withdrawals decode, with GoBGP's
// parser, to exactly the prefixes given, in messages filled to the limit.
func TestPackUpdates(t *testing.T) {
	all := append(prefixes(3000, false), prefixes(1000, true)...)
	cases := []struct {
		name      string
		in        []netip.Prefix
		addPath   bool
		localPref uint32
		minMsgs   int
	}{
		{name: "IPv4", in: prefixes(3000, false), minMsgs: 3000 * 4 / 4096},
		{name: "IPv6", in: prefixes(1000, true), minMsgs: 1000 * 9 / 4096},
		{name: "both, ADD-PATH", in: all, addPath: true},
		{name: "one", in: prefixes(1, false)},
		{name: "both, LOCAL_PREF", in: all, localPref: 100, minMsgs: 3000*4/4096 + 1000*9/4096},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := Attrs{NextHop: netip.MustParseAddr("10.0.0.1"), NextHop6: netip.MustParseAddr("fd00::1"),
				ASPath: []uint32{4200000000}, AddPath: tc.addPath, PathID: 7, LocalPref: tc.localPref}
			msgs, err := PackUpdates(tc.in, a)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range [][][]byte{msgs, Withdraws(tc.in, a)} {
				d := decode(t, w, tc.addPath)
				if len(d.prefixes) != len(tc.in) {
					t.Fatalf("decoded %d prefixes, want %d", len(d.prefixes), len(tc.in))
				}
				for _, p := range tc.in {
					if !d.prefixes[p.String()] {
						t.Fatalf("%s missing", p)
					}
				}
				if tc.addPath && (len(d.ids) != 1 || !d.ids[7]) {
					t.Fatalf("path IDs %v", d.ids)
				}
			}
			d := decode(t, msgs, tc.addPath)
			if len(d.nextHops) == 0 {
				t.Fatal("no next hop")
			}
			if tc.localPref != 0 && (len(d.localPref) != 1 || !d.localPref[tc.localPref]) {
				t.Fatalf("LOCAL_PREF values %v, want only %d", d.localPref, tc.localPref)
			}
			if tc.localPref == 0 && len(d.localPref) != 0 {
				t.Fatalf("LOCAL_PREF %v, want none", d.localPref)
			}
			// Dense: at most one message per family is not full to a prefix.
			if len(msgs) > tc.minMsgs+2 && tc.minMsgs > 0 {
				t.Fatalf("%d messages for %d prefixes, want about %d", len(msgs), len(tc.in), tc.minMsgs+1)
			}
		})
	}
}

func TestEndOfRIB(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		msg, err := bgp.ParseBGPMessage(EndOfRIB(v6))
		if err != nil {
			t.Fatal(err)
		}
		ok, rf := msg.Body.(*bgp.BGPUpdate).IsEndOfRib()
		want := bgp.RF_IPv4_UC
		if v6 {
			want = bgp.RF_IPv6_UC
		}
		if !ok || rf != want {
			t.Fatalf("v6=%v: End-of-RIB %v %v", v6, ok, rf)
		}
	}
}

// TestBrokenIsBroken: every broken UPDATE fails GoBGP's parser or validator,
// except the oversized one, whose only fault is its length.
func TestBrokenIsBroken(t *testing.T) {
	a := Attrs{NextHop: netip.MustParseAddr("10.0.0.1"), NextHop6: netip.MustParseAddr("fd00::1"), ASPath: []uint32{65010}}
	rfs := map[bgp.Family]bgp.BGPAddPathMode{bgp.RF_IPv4_UC: 0, bgp.RF_IPv6_UC: 0}
	for _, k := range Kinds {
		t.Run(k.String(), func(t *testing.T) {
			p := netip.MustParsePrefix("10.244.9.0/24")
			if k == BadMPReach {
				p = netip.MustParsePrefix("fd00:10:244:9::/64")
			}
			m := Broken(k, p, a)
			var h bgp.BGPHeader
			err := h.DecodeFromBytes(m)
			if err == nil && int(h.Len) == len(m) {
				var msg *bgp.BGPMessage
				msg, err = bgp.ParseBGPBody(&h, m[bgp.BGP_HEADER_LENGTH:])
				if err == nil {
					_, err = bgp.ValidateUpdateMsg(msg.Body.(*bgp.BGPUpdate), rfs, true, false, true)
				}
			}
			if k == OversizedMessage {
				if err != nil || len(m) <= MaxMessage {
					t.Fatalf("oversized: %d bytes, %v", len(m), err)
				}
				return
			}
			if err == nil {
				t.Fatalf("GoBGP accepts it")
			}
			t.Logf("%v", err)
		})
	}
}
