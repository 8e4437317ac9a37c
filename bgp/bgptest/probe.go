package bgptest

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// Probe connects to a BGP speaker at addr from local (when valid) and, in
// place of an OPEN, sends msgs as they are; then it reads what the speaker
// answers until it closes the connection or ctx ends. It returns the
// NOTIFICATION received, if any, and whether the speaker closed the
// connection (a speaker still waiting for an OPEN leaves it open).
func Probe(ctx context.Context, addr string, local netip.Addr, msgs ...[]byte) (n Notification, notified, closed bool, err error) {
	d := net.Dialer{}
	if local.IsValid() {
		d.LocalAddr = &net.TCPAddr{IP: local.AsSlice()}
	}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return n, false, false, fmt.Errorf("bgptest: connecting to %s: %w", addr, err)
	}
	defer nc.Close()
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Now()) })
	defer stop()
	for _, m := range msgs {
		if _, err := nc.Write(m); err != nil {
			return n, false, true, nil // closed on us already
		}
	}
	for {
		typ, body, err := readMessage(nc)
		if err != nil {
			return n, notified, ctx.Err() == nil, nil
		}
		if typ == bgp.BGP_MSG_NOTIFICATION {
			n, notified = decodeNotification(body), true
		}
	}
}
