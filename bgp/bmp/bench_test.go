package bmp

import (
	"encoding/binary"
	"net"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"

	"github.com/routewarden/routewarden/bgp/wire"
)

// benchPrefixes is how many IPv4 /24s BenchmarkStationIngest sends per
// iteration: BMP_BENCH_PREFIXES, default 1,000,000 (CI: 100000 -benchtime=1x).
func benchPrefixes(b *testing.B) int {
	if s := os.Getenv("BMP_BENCH_PREFIXES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("BMP_BENCH_PREFIXES=%q: want a positive number", s)
		}
		return n
	}
	return 1_000_000
}

// rawStream is what a raw BMP sender writes: an Initiation, then Route
// Monitoring messages announcing n distinct /24s, 1,000 per UPDATE, with one
// set of attributes (next hop, AS path) per UPDATE.
func rawStream(b *testing.B, peer netip.Addr, n int) []byte {
	out := initiation(b, "bench")
	hdr := peerHdr(peer, 0)
	ph, _ := hdr.Serialize()
	const perUpdate = 1000
	for first := 0; first < n; first += perUpdate {
		cnt := min(perUpdate, n-first)
		attrs := []byte{0x40, 1, 1, 0, // ORIGIN IGP
			0x40, 2, 6, 2, 1, 0, 0, 0xfd, 0xf2, // AS_PATH [65010]
			0x40, 3, 4, 10, 0, byte(first >> 16), byte(first >> 8)} // NEXT_HOP
		bgpLen := 19 + 2 + 2 + len(attrs) + 4*cnt
		msgLen := wire.BMPHeaderLen + len(ph) + bgpLen
		out = append(out, 3, 0, 0, 0, 0, 0)
		binary.BigEndian.PutUint32(out[len(out)-5:], uint32(msgLen))
		out = append(out, ph...)
		for range 16 {
			out = append(out, 0xff)
		}
		out = binary.BigEndian.AppendUint16(out, uint16(bgpLen))
		out = append(out, 2, 0, 0)
		out = binary.BigEndian.AppendUint16(out, uint16(len(attrs)))
		out = append(out, attrs...)
		for i := first; i < first+cnt; i++ {
			a := uint32(i) + 1<<16 // 1.0.0.0/24 onwards
			out = append(out, 24, byte(a>>16), byte(a>>8), byte(a))
		}
	}
	return out
}

// BenchmarkStationIngest drives the station over loopback TCP with a raw BMP
// sender and reports prefixes/s and heap bytes per stored route.
//
//	go test -run '^$' -bench BenchmarkStationIngest -benchtime 3x ./bgp/bmp/
//	BMP_BENCH_PREFIXES=100000 go test -run '^$' -bench BenchmarkStationIngest -benchtime 1x ./bgp/bmp/  # quick
func BenchmarkStationIngest(b *testing.B) {
	n := benchPrefixes(b)
	peer := netip.MustParseAddr("127.0.1.11")
	stream := rawStream(b, peer, n)
	var elapsed time.Duration
	var perRoute float64
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		st, stop := runStation(b)
		conn, err := net.Dial("tcp", st.Addr())
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		b.StartTimer()
		if _, err := conn.Write(stream); err != nil {
			b.Fatal(err)
		}
		for held(st) < n {
			time.Sleep(200 * time.Microsecond)
		}
		b.StopTimer()
		elapsed += time.Since(start)
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		perRoute = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
		runtime.KeepAlive(st)
		conn.Close()
		stop()
		b.StartTimer()
	}
	b.ReportMetric(float64(n)*float64(b.N)/elapsed.Seconds(), "prefixes/s")
	b.ReportMetric(perRoute, "heap-B/route")
}

func held(st *testStation) int {
	n := 0
	for _, p := range st.store.MonitoredPeers() {
		n += p.Routes
	}
	return n
}

// BenchmarkDecodeUpdate compares the fast UPDATE decoder with GoBGP's generic
// one on a full UPDATE of 1,000 /24s (the reason for bgp/wire).
func BenchmarkDecodeUpdate(b *testing.B) {
	stream := rawStream(b, netip.MustParseAddr("127.0.1.11"), 1000)
	init := int(binary.BigEndian.Uint32(stream[1:5]))
	msg := stream[init+wire.BMPHeaderLen+wire.PeerHeaderLen:]
	b.Run("fast", func(b *testing.B) {
		var u wire.Update
		for b.Loop() {
			if err := u.Decode(msg, wire.Options{}); err != nil || len(u.Announced) != 1000 {
				b.Fatal(err, len(u.Announced))
			}
		}
		b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "prefixes/s")
	})
	b.Run("gobgp", func(b *testing.B) {
		for b.Loop() {
			m, err := gobgp.ParseBGPMessage(msg)
			if err != nil || len(m.Body.(*gobgp.BGPUpdate).NLRI) != 1000 {
				b.Fatal(err)
			}
			for _, p := range m.Body.(*gobgp.BGPUpdate).NLRI {
				// PathNLRI's String appends the ADD-PATH ID ("1.0.0.0/24:0").
				if _, err := netip.ParsePrefix(p.NLRI.String()); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "prefixes/s")
	})
}
