package bgptest_test

import (
	"context"
	"log"
	"net/netip"
	"time"

	"github.com/routewarden/routewarden/bgp/bgptest"
)

// A speaker at 127.0.1.10 announces 10,000 host routes, packed into full
// UPDATEs, then End-of-RIB, and drops the session as a crashed speaker would.
func ExampleDial() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := bgptest.Dial(ctx, "127.0.0.1:1790", bgptest.Open{ASN: 65010,
		RouterID: netip.MustParseAddr("127.0.1.10"), LocalAddr: netip.MustParseAddr("127.0.1.10")})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	var prefixes []netip.Prefix
	for i := range 10000 {
		prefixes = append(prefixes, netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 100, byte(i >> 8), byte(i)}), 32))
	}
	msgs, err := bgptest.PackUpdates(prefixes, bgptest.Attrs{NextHop: netip.MustParseAddr("10.0.0.10"),
		ASPath: []uint32{65010}})
	if err != nil {
		log.Fatal(err)
	}
	if err := conn.Send(append(msgs, bgptest.EndOfRIB(false))...); err != nil {
		log.Fatal(err)
	}
	if n, ok := conn.Notification(); ok {
		log.Printf("the peer said %v", n)
	}
}
