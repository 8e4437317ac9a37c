package rtr

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/internal/wait"
	"github.com/routewarden/routewarden/validator"
	"github.com/routewarden/routewarden/validator/roa"
)

// memSource is an in-memory inventory the tests change.
type memSource struct {
	mu        sync.Mutex
	c         *validator.Cluster
	version   uint64
	available bool
}

func (m *memSource) Cluster(time.Time) (*validator.Cluster, uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.c, m.version, nil
}

func (m *memSource) InventoryStatus() validator.InventoryStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	return validator.InventoryStatus{Synced: true, Available: m.available, Reason: "test outage"}
}

// setNodes makes the nodes i (10.244.i.0/24, AS 65010) the cluster; a
// negative i is node -i without a local ASN.
func (m *memSource) setNodes(nodes ...int) {
	c := &validator.Cluster{IPAM: validator.IPAM{Mode: validator.IPAMClusterPool,
		PodRanges: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}}, NodeASNs: map[string][]uint32{}}
	for _, i := range nodes {
		if i > 0 {
			c.NodeASNs["node"+itoa(uint32(i))] = []uint32{65010}
		}
		i = max(i, -i)
		name := "node" + itoa(uint32(i))
		c.Nodes = append(c.Nodes, validator.Node{Name: name})
		c.CiliumNodes = append(c.CiliumNodes, validator.CiliumNode{Name: name,
			PodCIDRs: []netip.Prefix{netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 244, byte(i), 0}), 24)}})
	}
	m.mu.Lock()
	m.c, m.available = c, true
	m.version++
	m.mu.Unlock()
}

// setASN gives every node the local ASN asn (a new inventory version).
func (m *memSource) setASN(asn uint32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := *m.c
	c.NodeASNs = map[string][]uint32{}
	for _, n := range c.Nodes {
		c.NodeASNs[n.Name] = []uint32{asn}
	}
	m.c = &c
	m.version++
}

func (m *memSource) setAvailable(ok bool) {
	m.mu.Lock()
	m.available = ok
	m.mu.Unlock()
}

// startServer runs a server on 127.0.0.1 over src until the test ends.
func startServer(t *testing.T, src Source, cfg Config) *Server {
	t.Helper()
	return startServerLog(t, src, cfg, zerolog.Nop())
}

// startServerLog is startServer logging to log.
func startServerLog(t *testing.T, src Source, cfg Config, log zerolog.Logger) *Server {
	t.Helper()
	cfg.Listen = "127.0.0.1:0"
	cfg.Poll = 20 * time.Millisecond
	cfg.Refresh, cfg.Retry, cfg.Expire = 60*time.Second, 30*time.Second, 600*time.Second
	s, err := New(cfg, src, log, prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return s
}

// serveNodes runs a server over the nodes (as setNodes takes them) and waits
// for its first set.
func serveNodes(t *testing.T, cfg Config, nodes ...int) (*memSource, *Server) {
	t.Helper()
	src := &memSource{}
	src.setNodes(nodes...)
	s := startServer(t, src, cfg)
	wait.True(t, "the first set", 20*time.Second, func() bool { return s.Status().Ready })
	return src, s
}

// reset sends a version 1 Reset Query and returns the End of Data.
func (c *client) reset() PDU {
	c.t.Helper()
	c.send(PDU{Version: 1, Type: TypeResetQuery})
	_, _, eod := c.response()
	return eod
}

// client is a test router speaking RTR through the package's own codec.
type client struct {
	t    *testing.T
	conn net.Conn
	r    *Reader
}

func dial(t *testing.T, s *Server) *client {
	t.Helper()
	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &client{t: t, conn: conn, r: NewReader(conn)}
}

func (c *client) send(p PDU) {
	c.t.Helper()
	if _, err := c.conn.Write(p.Append(nil)); err != nil {
		c.t.Fatal(err)
	}
}

// read returns the next PDU, failing after 20s.
func (c *client) read() PDU {
	c.t.Helper()
	_ = c.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	p, err := c.r.Read()
	if err != nil {
		c.t.Fatalf("reading a PDU: %v", err)
	}
	return p
}

// response reads a Cache Response to End of Data: the prefixes and the End of Data.
func (c *client) response() (withdrawn, announced []roa.ROA, eod PDU) {
	c.t.Helper()
	if p := c.read(); p.Type != TypeCacheResponse {
		c.t.Fatalf("got PDU %+v, want a Cache Response", p)
	}
	for {
		p := c.read()
		switch p.Type {
		case TypeIPv4Prefix, TypeIPv6Prefix:
			r := roa.ROA{Prefix: p.Prefix, MaxLen: p.MaxLen, ASN: p.ASN}
			if p.Flags&FlagAnnounce != 0 {
				announced = append(announced, r)
			} else {
				withdrawn = append(withdrawn, r)
			}
		case TypeEndOfData:
			return withdrawn, announced, p
		default:
			c.t.Fatalf("got PDU %+v inside a response", p)
		}
	}
}

// closed reports whether the server closed the connection (within 20s).
func (c *client) closed() bool {
	_ = c.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		_, err := c.r.Read()
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return false
		}
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				return true
			}
		}
	}
}

func roaStrings(rs []roa.ROA) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Prefix.String()+" AS"+itoa(r.ASN))
	}
	return out
}

func itoa(n uint32) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
