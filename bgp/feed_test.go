package bgp

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	gbmp "github.com/osrg/gobgp/v4/pkg/packet/bmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/internal/wait"
)

// TestRouteFeedTakesOnlyGoBGPsClient: the feed's loopback listener refuses a
// connection whose Initiation does not carry the token given to GoBGP's BMP
// client, takes the one that does, and then listens no more, so no other
// local process can feed routes in.
func TestRouteFeedTakesOnlyGoBGPsClient(t *testing.T) {
	t.Parallel()
	c, err := NewCollector(testConfig(freePort(t), false), zerolog.Nop(), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	f, err := newRouteFeed(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.run(ctx) }()
	addr := f.ln.Addr().String()
	initiation := func(sysName string) []byte {
		b, err := gbmp.NewBMPInitiation([]gbmp.BMPInfoTLVInterface{
			gbmp.NewBMPInfoTLVString(gbmp.BMP_INIT_TLV_TYPE_SYS_NAME, sysName)}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	dial := func(sysName string) net.Conn {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("dialing the feed: %v", err)
		}
		if _, err := conn.Write(initiation(sysName)); err != nil {
			t.Fatal(err)
		}
		return conn
	}

	impostor := dial("GoBGP")
	_ = impostor.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := impostor.Read(make([]byte, 1)); err == nil {
		t.Error("the feed answered a connection without the token")
	}
	select {
	case <-f.ready:
		t.Fatal("the feed took a connection without the token")
	default:
	}

	gobgp := dial(f.token)
	defer gobgp.Close()
	wait.Recv(t, "the feed to take the connection with the token", 5*time.Second, f.ready)
	if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		conn.Close()
		t.Error("the feed still listens after GoBGP's client connected")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("the feed ended with %v at shutdown", err)
	}
}

// TestRouteFeedLossEndsRun: the feed cannot reconnect (GoBGP's client would
// re-send its table without the paths withdrawn meanwhile), so losing it ends
// Run with an error that says so, and the process restarts clean.
func TestRouteFeedLossEndsRun(t *testing.T) {
	t.Parallel()
	c, err := NewCollector(testConfig(freePort(t), false), zerolog.Nop(), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	f := wait.Value(t, "the collector to start its route feed", 10*time.Second, func() (*routeFeed, error) {
		c.mu.RLock()
		defer c.mu.RUnlock()
		if c.feed == nil {
			return nil, errors.New("no route feed")
		}
		return c.feed, nil
	})
	wait.Recv(t, "GoBGP's client to connect to the feed", 10*time.Second, f.ready)
	f.conn.Close()
	if err := wait.Recv(t, "Run to end without its route feed", 10*time.Second, done); err == nil ||
		!strings.Contains(err.Error(), "route feed ended") {
		t.Errorf("Run ended with %v, want the feed's end", err)
	}
}
