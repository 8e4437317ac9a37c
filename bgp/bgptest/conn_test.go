package bgptest_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp"
	"github.com/routewarden/routewarden/bgp/bgptest"
	"github.com/routewarden/routewarden/internal/loopback"
	"github.com/routewarden/routewarden/internal/wait"
)

func startCollector(t *testing.T) (*bgp.Collector, string) {
	t.Helper()
	port := loopback.FreePort(t)
	c, err := bgp.NewCollector(bgp.Config{ASN: 65000, RouterID: netip.MustParseAddr("192.0.2.1"),
		ListenAddresses: []string{"127.0.0.1"}, ListenPort: port,
		Dynamic: []bgp.DynamicRange{{Prefix: netip.MustParsePrefix("127.0.1.0/24"),
			PeerSettings: bgp.PeerSettings{ASN: 65010}}}}, zerolog.Nop(), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() { cancel(); _ = <-done }) // ends with the context's error
	return c, net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port)))
}

func dial(t *testing.T, addr, local string, asn uint32) (*bgptest.Conn, error) {
	t.Helper()
	var c *bgptest.Conn
	var err error
	// The collector may not listen yet right after Run starts, and while it
	// adds its dynamic range GoBGP closes or resets a connection it has no
	// neighbor for (seen in CI as EOF before its OPEN).
	wait.True(t, "a connection", 30*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err = bgptest.Dial(ctx, addr, bgptest.Open{ASN: asn, RouterID: netip.MustParseAddr(local),
			LocalAddr: netip.MustParseAddr(local), HoldTime: 9, AddPathSend: true})
		return err == nil || !strings.Contains(err.Error(), "connection refused") &&
			!strings.Contains(err.Error(), "connection reset by peer") && !errors.Is(err, io.EOF)
	})
	if c != nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

func routes(c *bgp.Collector) int {
	rs, _ := c.Store().Routes()
	return len(rs)
}

// TestDialSendClose: a raw session delivers packed UPDATEs to a real collector
// (with ADD-PATH), and closing it without a NOTIFICATION takes them away.
func TestDialSendClose(t *testing.T) {
	t.Parallel()
	coll, addr := startCollector(t)
	conn, err := dial(t, addr, "127.0.1.71", 65010)
	if err != nil {
		t.Fatal(err)
	}
	var ps []netip.Prefix
	for i := range 2000 {
		ps = append(ps, netip.PrefixFrom(netip.AddrFrom4([4]byte{10, byte(i >> 8), byte(i), 0}), 24))
	}
	ps = append(ps, netip.MustParsePrefix("fd00:10:244::/64"))
	a := bgptest.Attrs{NextHop: netip.MustParseAddr("10.0.0.71"), NextHop6: netip.MustParseAddr("fd00::71"),
		ASPath: []uint32{65010}, AddPath: true, PathID: 1}
	msgs, err := bgptest.PackUpdates(ps, a)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Send(append(msgs, bgptest.EndOfRIB(false), bgptest.EndOfRIB(true))...); err != nil {
		t.Fatal(err)
	}
	wait.True(t, "every route", 30*time.Second, func() bool { return routes(coll) == len(ps) })
	if err := conn.Send(bgptest.Withdraws(ps[:1000], a)...); err != nil {
		t.Fatal(err)
	}
	wait.True(t, "the withdrawals", 30*time.Second, func() bool { return routes(coll) == len(ps)-1000 })
	if n, ok := conn.Notification(); ok {
		t.Fatalf("unexpected %v", n)
	}
	conn.Close()
	wait.True(t, "the routes of the closed session to go", 30*time.Second, func() bool { return routes(coll) == 0 })
}

// TestDialRefused: a session the collector refuses (wrong ASN) is an error
// that carries the peer's NOTIFICATION.
func TestDialRefused(t *testing.T) {
	t.Parallel()
	_, addr := startCollector(t)
	_, err := dial(t, addr, "127.0.1.72", 65099)
	if err == nil || !strings.Contains(err.Error(), "NOTIFICATION 2/2") {
		t.Fatalf("error %v, want NOTIFICATION 2/2 (bad peer AS)", err)
	}
}

// TestDialSilentPeer: a peer that accepts TCP but never answers the OPEN
// fails the Dial when its context ends.
func TestDialSilentPeer(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	silent := make(chan struct{})
	defer close(silent)
	go func() {
		c, err := l.Accept()
		if err == nil {
			defer c.Close()
			<-silent // holds the connection, silent, until the test ends
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = bgptest.Dial(ctx, l.Addr().String(), bgptest.Open{ASN: 65010, RouterID: netip.MustParseAddr("127.0.1.74")})
	if err == nil || time.Since(start) > 3*time.Second {
		t.Fatalf("Dial returned %v after %s", err, time.Since(start))
	}
}
