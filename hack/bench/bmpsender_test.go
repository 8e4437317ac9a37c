package main

import (
	"context"
	"net"
	"net/netip"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/bmp"
	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/hack/bench/ingest"
)

// TestBMPStreamIntoStation proves the BMP sender's stream is what a router
// would send: routewarden's real BMP station, on a loopback port, takes it
// into a Store that then holds every prefix of the workload once, from the
// monitored peer, with its node's next hop.
func TestBMPStreamIntoStation(t *testing.T) {
	eachWorkload(t, func(t *testing.T, w ingest.Workload, msgs []byte, _ int) {
		peer := netip.MustParseAddr("127.0.0.2")
		stream, err := buildBMPStream(msgs, peer)
		if err != nil {
			t.Fatal(err)
		}
		store := rib.NewStore()
		st, err := bmp.New(bmp.Config{Listen: "127.0.0.1:0"}, store, zerolog.Nop(), prometheus.NewRegistry())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Listen(); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- st.Run(ctx) }()
		defer func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("station: %v", err)
			}
		}()
		_, port, _ := net.SplitHostPort(st.Addr())
		p, err := strconv.Atoi(port)
		if err != nil {
			t.Fatal(err)
		}
		snd := &bmpSender{stream: stream}
		if _, err := snd.start(ctx, p); err != nil {
			t.Fatal(err)
		}
		defer snd.stop()
		deadline := time.Now().Add(20 * time.Second)
		for store.Len() < w.N && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		routes, _ := store.Routes()
		if len(routes) != w.N {
			t.Fatalf("the store holds %d paths, want %d", len(routes), w.N)
		}
		want := map[netip.Prefix]netip.Addr{}
		for i := 0; i < w.N; i++ {
			want[w.Prefix(i)] = w.NodeAddr(w.NodeOf(i))
		}
		for _, r := range routes {
			if nh, ok := want[r.Prefix]; !ok || r.NextHop != nh || r.Peer != peer {
				t.Fatalf("%s: next hop %s from %s, want %s from %s", r.Prefix, r.NextHop, r.Peer, nh, peer)
			}
			delete(want, r.Prefix)
		}
		mon := store.MonitoredPeers()
		if len(mon) != 1 || mon[0].Address != peer || mon[0].BMP.Router != netip.MustParseAddr(bmpRouter) {
			t.Errorf("monitored peers %+v, want %s through router %s", mon, peer, bmpRouter)
		}
	})
}
