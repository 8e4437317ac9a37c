package bgp

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/bgptest"
	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/internal/logbuf"
	"github.com/routewarden/routewarden/validator"
)

// running is a collector run by a reliability test, with its log, and a stop
// that the test may call early (to check goroutines afterwards).
type running struct {
	*Collector
	port int32
	log  *logbuf.Buffer
	done chan error
	stop func()
}

func runCollector(t testing.TB, cfg Config) *running {
	t.Helper()
	buf := &logbuf.Buffer{}
	c, err := NewCollector(cfg, zerolog.New(buf).Level(zerolog.WarnLevel), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{Collector: c, port: cfg.ListenPort, log: buf, done: make(chan error, 1)}
	go func() { r.done <- c.Run(ctx) }()
	var once sync.Once
	r.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-r.done; err != nil {
				t.Errorf("collector: %v", err)
			}
		})
	}
	t.Cleanup(r.stop)
	return r
}

// alive reports whether Run is still running.
func (r *running) alive() bool {
	select {
	case err := <-r.done:
		r.done <- err
		return false
	default:
		return true
	}
}

func (r *running) addr() string { return "127.0.0.1:" + strconv.Itoa(int(r.port)) }

// peerRoutes returns the routes held from peer, by prefix.
func (r *running) peerRoutes(peer string) map[string]validator.Route {
	return routesOf(r.Store(), peer)
}

func (r *running) peer(addr string) (rib.PeerInfo, bool) {
	for _, p := range r.Store().Peers() {
		if p.Address.String() == addr {
			return p, true
		}
	}
	return rib.PeerInfo{}, false
}

// rawOpen is the OPEN of a raw test speaker at local.
func rawOpen(local string, asn uint32, restart uint16) bgptest.Open {
	return bgptest.Open{ASN: asn, RouterID: netip.MustParseAddr(local), LocalAddr: netip.MustParseAddr(local),
		HoldTime: 30, AddPathSend: true, RestartTime: restart}
}

// dialRaw opens a raw session, retrying while the collector does not listen
// yet or still tears down the previous session from the same address.
func dialRaw(t testing.TB, addr string, o bgptest.Open) *bgptest.Conn {
	t.Helper()
	c, err := dialRetry(addr, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// dialRetry is dialRaw for other goroutines than the test's: the caller closes.
func dialRetry(addr string, o bgptest.Open) (*bgptest.Conn, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err := bgptest.Dial(ctx, addr, o)
		cancel()
		if err == nil || time.Now().After(deadline) {
			return c, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// rawAttrs are the attributes of a raw speaker's routes (ADD-PATH, path ID 1).
func rawAttrs(nextHop string) bgptest.Attrs {
	return bgptest.Attrs{NextHop: netip.MustParseAddr(nextHop), NextHop6: netip.MustParseAddr("fd00::1"),
		ASPath: []uint32{65010}, AddPath: true, PathID: 1}
}

func announceRaw(t testing.TB, c *bgptest.Conn, a bgptest.Attrs, eor bool, prefixes ...netip.Prefix) {
	t.Helper()
	msgs, err := bgptest.PackUpdates(prefixes, a)
	if err != nil {
		t.Fatal(err)
	}
	if eor {
		msgs = append(msgs, bgptest.EndOfRIB(false), bgptest.EndOfRIB(true))
	}
	if err := c.Send(msgs...); err != nil {
		t.Fatal(err)
	}
}

// counter reads one series of a counter vector.
func counter(v *prometheus.CounterVec, labels ...string) float64 {
	var m dto.Metric
	if err := v.WithLabelValues(labels...).Write(&m); err != nil {
		return -1
	}
	return m.GetCounter().GetValue()
}

// staticCluster is a fixed in-memory cluster for the monitoring loop (monitor/).
type staticCluster struct{ c validator.Cluster }

func (s staticCluster) Cluster(time.Time) (*validator.Cluster, uint64, error) {
	c := s.c
	return &c, 1, nil
}
func (staticCluster) Changed() <-chan struct{} { return nil }
func (staticCluster) InventoryStatus() validator.InventoryStatus {
	return validator.InventoryStatus{Synced: true, Available: true}
}

// testNode is a Ready cluster-pool node with one address and one pod CIDR.
type testNode struct {
	name string
	addr netip.Addr
	cidr netip.Prefix
}

func clusterOf(nodes ...testNode) validator.Cluster {
	c := validator.Cluster{IPAM: validator.IPAM{Mode: validator.IPAMClusterPool, ModeSource: "test",
		PodRanges: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}}}
	for _, n := range nodes {
		c.Nodes = append(c.Nodes, validator.Node{Name: n.name, Addresses: []netip.Addr{n.addr}, Ready: true})
		c.CiliumNodes = append(c.CiliumNodes, validator.CiliumNode{Name: n.name, Addresses: []netip.Addr{n.addr},
			PodCIDRs: []netip.Prefix{n.cidr}})
	}
	return c
}

// heapInuse is HeapInuse after two garbage collections.
func heapInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// writeHeapProfile writes a heap profile for go tool pprof, into
// $ROUTEWARDEN_PROFILE_DIR when set, else the test's temporary directory
// (removed when the test ends).
func writeHeapProfile(t *testing.T, name string) {
	t.Helper()
	dir := os.Getenv("ROUTEWARDEN_PROFILE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		t.Fatal(err)
	}
	t.Logf("heap profile: %s", path)
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// logHas reports whether one logged line contains every part.
func logHas(buf *logbuf.Buffer, parts ...string) bool {
	for _, line := range strings.Split(buf.String(), "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}
