package bgp

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/routewarden/routewarden/bgp/bgptest"
)

// Messages that killed the whole process with GoBGP v3.37.0 (a panic in a
// goroutine GoBGP starts, which no recover of ours can catch), and their
// neighbours in GoBGP's fixes. Each is built byte by byte for a session
// without ADD-PATH and with 4-octet ASNs; the UPDATEs announce 10.244.P.0/24
// with next hop 10.0.0.99 (P from the case).
var (
	crashOrigin  = []byte{0x40, 1, 1, 0}                      // ORIGIN IGP
	crashASPath  = []byte{0x40, 2, 6, 2, 1, 0, 0, 0xfe, 0x4c} // AS_PATH AS_SEQUENCE [65100]
	crashNextHop = []byte{0x40, 3, 4, 10, 0, 0, 99}           // NEXT_HOP 10.0.0.99
)

// crashCases: after OPEN, what the collector does with the message (as in
// TestMalformedUpdates); before OPEN (sent in its place), the NOTIFICATION it
// answers with. GoBGP v4.8.0's behaviour, asserted.
var crashCases = []struct {
	name     string
	msg      func(p byte) []byte
	out      string // after OPEN
	code     uint8  // the NOTIFICATION after OPEN, for outReset
	sub      uint8
	action   string // routewarden_bgp_update_errors_total{action} after OPEN
	openCode uint8  // the NOTIFICATION before OPEN
	openSub  uint8
	v3       string // what it did to v3.37.0
}{
	{name: "unknown message type", msg: func(byte) []byte { return bgptest.Message(9, []byte{1, 2, 3}) },
		out: outReset, code: 1, sub: 3, action: "session-reset", openCode: 1, openSub: 3,
		v3: "osrg/gobgp#3325: nil dereference in fsmHandler.handlingError (fixed in v4.4.0, a38edb25)"},
	{name: "AS4_PATH before AS_PATH", msg: func(p byte) []byte {
		as4Path := []byte{0xc0, 17, 6, 2, 1, 0, 0, 0xfe, 0x4c}
		return crashUpdate(nil, cat(crashOrigin, crashNextHop, as4Path, crashASPath), p)
	}, out: outAccepted, openCode: 5, openSub: 1,
		v3: "GO-2026-5266: index out of range in UpdatePathAttrs4ByteAs (fixed in v4.3.0, 9fe96a9b)"},
	{name: "SRv6 service TLV with an unknown sub-TLV", msg: func(p byte) []byte {
		prefixSID := []byte{0xc0, 40, 10, 5, 0, 7, 0, 0xff, 0, 3, 1, 2, 3}
		return crashUpdate(nil, cat(crashOrigin, crashASPath, crashNextHop, prefixSID), p)
	}, out: outAccepted, openCode: 5, openSub: 1,
		v3: "GO-2026-5665: slice bounds out of range in SRv6ServiceTLV.DecodeFromBytes (fixed in v4.4.0, f9f7b55e)"},
	{name: "zero-length SRv6 service TLV", msg: func(p byte) []byte {
		// The TLV of length 0, and a byte after it (a Prefix-SID shorter
		// than 4 bytes is not read at all).
		prefixSID := []byte{0xc0, 40, 4, 5, 0, 0, 0}
		return crashUpdate(nil, cat(crashOrigin, crashASPath, crashNextHop, prefixSID), p)
	}, out: outAccepted, action: "attribute-discard", openCode: 3, openSub: 1,
		v3: "slice bounds out of range in SRv6ServiceTLV.DecodeFromBytes (fixed in v4.0.0, ac5a8894)"},
	{name: "NEXT_HOP length 0", msg: func(p byte) []byte {
		return crashUpdate(nil, cat(crashOrigin, crashASPath, []byte{0x40, 3, 0, 10, 0, 0, 99}), p)
	}, out: outWithdrawn, action: "treat-as-withdraw", openCode: 3, openSub: 5,
		v3: "survived (GO-2026-4736 crashes v4 before v4.4.0)"},
	{name: "empty AS_PATH", msg: func(p byte) []byte {
		return crashUpdate(nil, cat(crashOrigin, []byte{0x40, 2, 0}, crashNextHop), p)
	}, out: outAccepted, openCode: 5, openSub: 1,
		v3: "survived (the confederation check on an empty AS_PATH, 4a319a6c, needs a confederation)"},
	{name: "withdrawn routes length underflow", msg: func(p byte) []byte {
		// Withdrawn routes length 2, then a /32 of 5 bytes.
		body := cat([]byte{0, 2, 32, 10, 0, 0, 1, 0, 0}, []byte{24, 10, 244, p})
		return bgptest.Message(2, body)
	}, out: outReset, code: 3, sub: 1, action: "session-reset", openCode: 3, openSub: 1,
		v3: "survived (read on past the section: 9ce89366)"},
	{name: "path attribute length underflow", msg: func(p byte) []byte {
		// Total path attribute length 3, then a 4-byte ORIGIN.
		body := cat([]byte{0, 0, 0, 3}, crashOrigin, crashASPath, crashNextHop, []byte{24, 10, 244, p})
		return bgptest.Message(2, body)
	}, out: outIgnored, action: "treat-as-withdraw", openCode: 3, openSub: 5,
		v3: "survived (read on past the section: 9ce89366)"},
	{name: "OPEN with a capability shorter than its value", msg: func(byte) []byte {
		// 4-octet AS capability of length 0, followed by a multiprotocol one.
		caps := []byte{2, 8, 65, 0, 1, 4, 0, 1, 0, 1}
		return bgptest.Message(1, cat([]byte{4, 0xfe, 0x4c, 0, 90, 127, 0, 2, 1, byte(len(caps))}, caps))
	}, out: outReset, code: 2, sub: 7, action: "session-reset", openCode: 2, openSub: 7,
		v3: "survived (misread: f02ca397)"},
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// crashUpdate is an UPDATE with the given withdrawn routes and attributes
// announcing 10.244.p.0/24.
func crashUpdate(withdrawn, attrs []byte, p byte) []byte {
	body := []byte{byte(len(withdrawn) >> 8), byte(len(withdrawn))}
	body = append(body, withdrawn...)
	body = append(body, byte(len(attrs)>>8), byte(len(attrs)))
	body = append(body, attrs...)
	return bgptest.Message(2, append(body, 24, 10, 244, p))
}

// TestNoMessageKillsTheCollector replays each message of crashCases from a
// configured neighbor, in place of its OPEN and in an established session,
// while a GoBGP speaker (dynamic) and a raw static neighbor have routes in:
// the collector lives, the other sessions and their routes are untouched, and
// the outcome is the one asserted and counted.
func TestNoMessageKillsTheCollector(t *testing.T) {
	t.Parallel()
	cfg := testConfig(freePort(t), false)
	for i := range crashCases {
		for _, n := range []int{2 * i, 2*i + 1} {
			cfg.Neighbors = append(cfg.Neighbors, Neighbor{Address: crashNeighbor(n), PeerSettings: PeerSettings{ASN: 65100}})
		}
	}
	cfg.Neighbors = append(cfg.Neighbors, Neighbor{Address: crashNeighbor(250), PeerSettings: PeerSettings{ASN: 65100}})
	r := runCollector(t, cfg)
	good := startSpeaker(t, "127.0.1.81", 65010, r.port, 65000, false)
	good.announce("10.244.81.0/24", "10.0.0.81")
	static := dialRaw(t, r.addr(), crashOpen(crashNeighbor(250)))
	a := rawAttrs("10.0.0.250")
	a.AddPath, a.PathID = false, 0
	announceRaw(t, static, a, true, netip.MustParsePrefix("10.244.250.0/24"))
	others := func() string {
		return fmt.Sprint(r.peerRoutes("127.0.1.81"), r.peerRoutes(crashNeighbor(250).String()))
	}
	eventually(t, "the other sessions' routes", func() bool {
		return len(r.peerRoutes("127.0.1.81")) == 1 && len(r.peerRoutes(crashNeighbor(250).String())) == 1
	})
	before := others()
	untouched := func(t *testing.T) {
		t.Helper()
		if !r.alive() {
			t.Fatal("the collector stopped")
		}
		select {
		case <-static.Done():
			t.Fatal("the static neighbor's session ended")
		default:
		}
		if !good.established() || others() != before {
			t.Fatalf("another session was touched: established %v, routes %s (were %s)", good.established(), others(), before)
		}
	}

	for i, tc := range crashCases {
		t.Run(tc.name+"/before OPEN", func(t *testing.T) {
			local := crashNeighbor(2 * i)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			n, notified, closed, err := bgptest.Probe(ctx, r.addr(), local, tc.msg(byte(100+i)))
			if err != nil {
				t.Fatal(err)
			}
			if !closed || !notified || n.Code != tc.openCode || n.Subcode != tc.openSub {
				t.Fatalf("closed %v, %v (received %v), want NOTIFICATION %d/%d", closed, n, notified, tc.openCode, tc.openSub)
			}
			eventually(t, "the NOTIFICATION sent to be counted", func() bool {
				return counter(r.metrics.notifications, local.String(), "sent", fmt.Sprint(n.Code), fmt.Sprint(n.Subcode)) == 1
			})
			untouched(t)
		})
		t.Run(tc.name+"/after OPEN", func(t *testing.T) {
			local := crashNeighbor(2*i + 1)
			conn := dialRaw(t, r.addr(), crashOpen(local))
			p := byte(100 + i)
			pfx := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 244, p, 0}), 24)
			sentinel := netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 99, p, 0}), 24)
			a := rawAttrs("10.0.0.73")
			a.AddPath, a.PathID, a.ASPath = false, 0, []uint32{65100}
			out := brokenOutcome(t, r, conn, local.String(), a, pfx, sentinel, func(bgptest.Attrs) []byte { return tc.msg(p) })
			if out != tc.out {
				t.Fatalf("outcome %s, want %s", out, tc.out)
			}
			wantCounted(t, r, conn, local.String(), out, tc.code, tc.sub, tc.action)
			untouched(t)
			conn.Close()
		})
	}
}

// crashNeighbor is the address of static neighbor n of the crash test.
func crashNeighbor(n int) netip.Addr { return netip.AddrFrom4([4]byte{127, 0, 2, byte(n + 1)}) }

// crashOpen is the OPEN of a crash test neighbor: no ADD-PATH, 4-octet ASNs.
func crashOpen(local netip.Addr) bgptest.Open {
	return bgptest.Open{ASN: 65100, RouterID: local, LocalAddr: local, HoldTime: 30}
}
