package bgp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	gbmp "github.com/osrg/gobgp/v4/pkg/packet/bmp"
	"github.com/osrg/gobgp/v4/pkg/server"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/bgp/wire"
)

// The route feed. GoBGP's watch API turns every received path into protobuf
// messages (an Any for the NLRI and for every attribute), which the collector
// then had to decode again: at a million routes, a third of the process's CPU
// and most of its garbage (BENCHMARKS.md). GoBGP's own BMP client forwards
// every UPDATE a peer sends as the bytes that arrived (pre-policy Route
// Monitoring), in order with the session's Peer Up and Peer Down. The
// collector points that client at a listener on the loopback and decodes the
// UPDATEs itself (bgp/wire), as its BMP station does for routers.
//
// GoBGP forwards only UPDATEs it took paths from, after its checks: not
// those of a session that has ended, not one that broke the prefix limit, not
// one whose family it disabled (RFC 7606). It forwards no End-of-RIB (that
// UPDATE holds no path): the watch API reports it (watch.go), out of order
// with the feed, so an End-of-RIB is applied once the feed has brought
// nothing from its peer for feedQuiet and has read all it was sent, by which
// time the UPDATEs GoBGP took before it have come through (GoBGP's client
// forwards an UPDATE in far less time than GoBGP takes to process it), or at
// the session's end, which the feed orders; a peer that keeps sending gets its
// End-of-RIB after feedEoRMaxWait.
//
// Only GoBGP's client may feed the collector: the listener takes the first
// connection whose BMP Initiation names a random token given to the client,
// then closes. The feed cannot reconnect: when it ends while the collector
// runs, Run fails and the process restarts with a clean table.
const (
	feedQuiet      = 100 * time.Millisecond
	feedEoRMaxWait = 5 * time.Second
	feedHandshake  = 10 * time.Second
	// feedGreeting is how long a connection may take to send its Initiation
	// (GoBGP's client sends it as soon as it is connected).
	feedGreeting = time.Second
)

type routeFeed struct {
	c          *Collector
	ln         net.Listener
	token      string
	ready      chan struct{}
	rt         *restartTimes
	sampledLog zerolog.Logger
	kick       chan struct{}
	conn       net.Conn // GoBGP's client, once ready is closed

	// mu guards what follows; a message is applied with it held, so pending
	// End-of-RIBs are applied between messages.
	mu      sync.Mutex
	peers   map[netip.Addr]*feedPeer
	pending []pendingEoR
	// buffered is what the feed had read but not applied after the last message.
	buffered int
	upd      wire.Update
	rm       *rib.RouteMonitoring
}

// feedPeer is what the feed knows about one peer's current session.
type feedPeer struct {
	up      bool
	session uint64 // Peer Ups seen
	opts    wire.Options
	localAS uint32     // the collector's ASN on the session, from its OPEN
	local   netip.Addr // the collector's address on the session (Peer Up's Local Address)
	relayed bool       // the configuration's role tor for the peer (Collector.relayed), at Peer Up and reconfiguration
	gobgp   *gobgpSession
	// preserved are the families GoBGP keeps through a graceful restart.
	preserved []gobgp.Family
	lastPath  time.Time
}

type pendingEoR struct {
	peer    netip.Addr
	family  string
	isV6    bool
	session uint64
	posted  time.Time
}

func newRouteFeed(c *Collector) (*routeFeed, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("opening the loopback listener for GoBGP's route feed: %w", err)
	}
	token := make([]byte, 16)
	_, _ = rand.Read(token)
	return &routeFeed{c: c, ln: ln, token: "routewarden-" + hex.EncodeToString(token), ready: make(chan struct{}),
		rt: &restartTimes{m: map[netip.Addr]time.Duration{}}, peers: map[netip.Addr]*feedPeer{},
		kick: make(chan struct{}, 1), rm: rib.NewRouteMonitoring(c.store, nil),
		sampledLog: c.log.Sample(&zerolog.BurstSampler{Burst: 10, Period: time.Minute})}, nil
}

// connect points GoBGP's BMP client at the feed and waits until it is
// connected, so that no peer can send before the feed listens.
func (f *routeFeed) connect(ctx context.Context, srv *server.BgpServer) error {
	port := f.ln.Addr().(*net.TCPAddr).Port
	err := srv.AddBmp(ctx, &api.AddBmpRequest{Address: "127.0.0.1", Port: uint32(port),
		Policy: api.AddBmpRequest_MONITORING_POLICY_PRE, SysName: f.token, SysDescr: "routewarden route feed"})
	if err != nil {
		return fmt.Errorf("starting GoBGP's route feed: %w", err)
	}
	select {
	case <-f.ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(feedHandshake):
		return fmt.Errorf("GoBGP's route feed did not connect to 127.0.0.1:%d within %s", port, feedHandshake)
	}
}

// drained reports whether the feed had read everything that had reached it
// when it applied its last message (called with mu held).
func (f *routeFeed) drained() bool { return f.buffered == 0 }

// disconnect stops GoBGP's BMP client (StopBgp leaves it running).
func (f *routeFeed) disconnect(ctx context.Context, srv *server.BgpServer) {
	port := f.ln.Addr().(*net.TCPAddr).Port
	if err := srv.DeleteBmp(ctx, &api.DeleteBmpRequest{Address: "127.0.0.1", Port: uint32(port)}); err != nil {
		f.c.log.Debug().Err(err).Msg("stopping GoBGP's route feed")
	}
}

// run serves the feed until ctx ends; it fails if the feed ends before.
func (f *routeFeed) run(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { f.ln.Close() })
	defer stop()
	conn, rd, err := f.accept()
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer conn.Close()
	stopConn := context.AfterFunc(ctx, func() { conn.Close() })
	defer stopConn()
	done := make(chan struct{})
	defer close(done)
	go f.applyEoRs(done)
	for {
		msg, err := rd.Next()
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return fmt.Errorf("GoBGP's route feed ended: %w", err)
		}
		if err := f.handle(ctx, msg, rd.Buffered()); err != nil {
			if ctx.Err() != nil { // GoBGP's client says goodbye at shutdown
				return nil
			}
			return err
		}
	}
}

// accept waits for GoBGP's client: the first connection from the loopback
// whose Initiation carries the token. Every connection gets its own short
// handshake, so an idle one cannot hold GoBGP's up.
func (f *routeFeed) accept() (net.Conn, *wire.BMPReader, error) {
	type client struct {
		conn net.Conn
		rd   *wire.BMPReader
	}
	won, failed := make(chan client, 1), make(chan error, 1)
	go func() {
		for {
			conn, err := f.ln.Accept()
			if err != nil {
				failed <- fmt.Errorf("accepting GoBGP's route feed: %w", err)
				return
			}
			go func() {
				_ = conn.SetReadDeadline(time.Now().Add(feedGreeting))
				rd := wire.NewBMPReader(conn)
				if addrOf(conn.RemoteAddr()).IsLoopback() && f.initiatedByGoBGP(rd) {
					select {
					case won <- client{conn, rd}:
						return
					default:
					}
				}
				f.c.log.Warn().Str("from", conn.RemoteAddr().String()).Msg("refused a connection to the route feed's listener")
				conn.Close()
			}()
		}
	}()
	select {
	case c := <-won:
		f.ln.Close() // no one else, ever
		_ = c.conn.SetReadDeadline(time.Time{})
		f.conn = c.conn
		close(f.ready)
		return c.conn, c.rd, nil
	case err := <-failed:
		return nil, nil, err
	}
}

func (f *routeFeed) initiatedByGoBGP(rd *wire.BMPReader) bool {
	msg, err := rd.Next()
	if err != nil || msg[5] != gbmp.BMP_MSG_INITIATION {
		return false
	}
	m, err := gbmp.ParseBMPMessage(msg)
	if err != nil {
		return false
	}
	for _, tlv := range m.Body.(*gbmp.BMPInitiation).Info {
		if v, ok := tlv.(*gbmp.BMPInfoTLVString); ok && v.Type == gbmp.BMP_INIT_TLV_TYPE_SYS_NAME {
			return v.Value == f.token
		}
	}
	return false
}

var errFeedTerminated = errors.New("GoBGP's route feed was terminated")

func addrOf(a net.Addr) netip.Addr {
	ap, _ := netip.ParseAddrPort(a.String())
	return ap.Addr().Unmap()
}
