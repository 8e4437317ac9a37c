package main

import (
	"encoding/binary"
	"testing"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"

	"github.com/routewarden/routewarden/bgp/bgptest"
	"github.com/routewarden/routewarden/hack/bench/ingest"
)

// TestPackedUpdatesDecode proves the raw sender's bytes are valid BGP that
// GoBGP's own parser reads back: every prefix once, with its node's next hop,
// one UPDATE per node, none over 4096 bytes, then End-of-RIB for IPv4 and IPv6.
func TestPackedUpdatesDecode(t *testing.T) {
	eachWorkload(t, func(t *testing.T, w ingest.Workload, msgs []byte, count int) {
		if count != w.Nodes {
			t.Errorf("%d UPDATEs for %d nodes, want one per node", count, w.Nodes)
		}
		seen := map[string]string{}
		var updates int
		var eor []bgp.Family
		for off := 0; off < len(msgs); {
			l := int(binary.BigEndian.Uint16(msgs[off+16:]))
			if l > bgptest.MaxMessage {
				t.Fatalf("message of %d bytes", l)
			}
			m, err := bgp.ParseBGPMessage(msgs[off : off+l])
			if err != nil {
				t.Fatalf("parsing message at %d: %v", off, err)
			}
			off += l
			u := m.Body.(*bgp.BGPUpdate)
			if ok, rf := u.IsEndOfRib(); ok {
				eor = append(eor, rf)
				continue
			}
			updates++
			nh := ""
			nlri := append([]bgp.PathNLRI(nil), u.NLRI...)
			for _, a := range u.PathAttributes {
				switch v := a.(type) {
				case *bgp.PathAttributeNextHop:
					nh = v.Value.String()
				case *bgp.PathAttributeMpReachNLRI:
					nh = v.Nexthop.String()
					nlri = append(nlri, v.Value...)
				}
			}
			for _, p := range nlri {
				seen[p.NLRI.String()] = nh
			}
		}
		if updates != count {
			t.Errorf("counted %d UPDATEs, parsed %d", count, updates)
		}
		if len(eor) != 2 || eor[0] != bgp.RF_IPv4_UC || eor[1] != bgp.RF_IPv6_UC {
			t.Errorf("End-of-RIB for %v, want IPv4 then IPv6 unicast", eor)
		}
		if len(seen) != w.N {
			t.Fatalf("%d distinct prefixes, want %d", len(seen), w.N)
		}
		for i := 0; i < w.N; i++ {
			p := w.Prefix(i)
			if nh := seen[p.String()]; nh != w.NodeAddr(w.NodeOf(i)).String() {
				t.Fatalf("%s: next hop %q, want %s", p, nh, w.NodeAddr(w.NodeOf(i)))
			}
		}
	})
}

// eachWorkload runs f on 2,500 prefixes of each family and the raw sender's
// messages for them (buildUpdates), a subtest a family.
func eachWorkload(t *testing.T, f func(t *testing.T, w ingest.Workload, msgs []byte, count int)) {
	for _, family := range []string{"ipv4", "ipv6"} {
		t.Run(family, func(t *testing.T) {
			w := ingest.New(family, 2500)
			msgs, count, err := buildUpdates(w)
			if err != nil {
				t.Fatal(err)
			}
			f(t, w, msgs, count)
		})
	}
}
