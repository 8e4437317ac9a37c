package bgptest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/osrg/gobgp/v4/pkg/packet/bgp"
)

// Open is what the speaker announces in its OPEN.
type Open struct {
	ASN      uint32
	RouterID netip.Addr // IPv4
	// HoldTime in seconds; 0 means 90. Keepalives go out every HoldTime/3.
	HoldTime uint16
	// LocalAddr, when set, is the source address of the TCP connection (e.g.
	// 127.0.1.x, so that a collector's dynamic range or static neighbor matches).
	LocalAddr netip.Addr
	// AddPathSend advertises ADD-PATH send for IPv4 and IPv6 unicast; UPDATEs
	// must then carry path IDs (Attrs.AddPath).
	AddPathSend bool
	// RestartTime > 0 advertises graceful restart with that restart time (s),
	// for RestartFamilies (IPv4 and IPv6 unicast when empty).
	RestartTime     uint16
	RestartFamilies []bgp.Family
}

// Notification is a NOTIFICATION received from the peer.
type Notification struct {
	Code, Subcode uint8
	Data          []byte
}

func (n Notification) String() string {
	return fmt.Sprintf("NOTIFICATION %d/%d (%s)", n.Code, n.Subcode, bgp.NewNotificationErrorCode(n.Code, n.Subcode))
}

// Conn is an established session. Its reader answers keepalives and records a
// NOTIFICATION; Done is closed when the peer closes the session.
type Conn struct {
	conn   net.Conn
	wmu    sync.Mutex
	mu     sync.Mutex
	notif  *Notification
	err    error
	done   chan struct{}
	stop   chan struct{}
	closed sync.Once
	wg     sync.WaitGroup
}

// Message frames a BGP message: marker, length, type, body.
func Message(typ uint8, body []byte) []byte {
	b := make([]byte, bgp.BGP_HEADER_LENGTH, bgp.BGP_HEADER_LENGTH+len(body))
	for i := range 16 {
		b[i] = 0xff
	}
	binary.BigEndian.PutUint16(b[16:18], uint16(bgp.BGP_HEADER_LENGTH+len(body)))
	b[18] = typ
	return append(b, body...)
}

// Keepalive is a KEEPALIVE message.
func Keepalive() []byte { return Message(bgp.BGP_MSG_KEEPALIVE, nil) }

func openMessage(o Open) ([]byte, error) {
	caps := []bgp.ParameterCapabilityInterface{
		bgp.NewCapMultiProtocol(bgp.RF_IPv4_UC), bgp.NewCapMultiProtocol(bgp.RF_IPv6_UC),
		bgp.NewCapRouteRefresh(), bgp.NewCapFourOctetASNumber(o.ASN),
	}
	if o.AddPathSend {
		caps = append(caps, bgp.NewCapAddPath([]*bgp.CapAddPathTuple{
			bgp.NewCapAddPathTuple(bgp.RF_IPv4_UC, bgp.BGP_ADD_PATH_SEND),
			bgp.NewCapAddPathTuple(bgp.RF_IPv6_UC, bgp.BGP_ADD_PATH_SEND)}))
	}
	if o.RestartTime > 0 {
		families := o.RestartFamilies
		if len(families) == 0 {
			families = []bgp.Family{bgp.RF_IPv4_UC, bgp.RF_IPv6_UC}
		}
		var tuples []*bgp.CapGracefulRestartTuple
		for _, rf := range families {
			tuples = append(tuples, bgp.NewCapGracefulRestartTuple(rf, true))
		}
		caps = append(caps, bgp.NewCapGracefulRestart(false, false, o.RestartTime, tuples))
	}
	as2 := uint16(bgp.AS_TRANS)
	if o.ASN <= 0xffff {
		as2 = uint16(o.ASN)
	}
	m, err := bgp.NewBGPOpenMessage(as2, o.HoldTime, o.RouterID,
		[]bgp.OptionParameterInterface{bgp.NewOptionParameterCapability(caps)})
	if err != nil {
		return nil, fmt.Errorf("bgptest: building the OPEN: %w", err)
	}
	return m.Serialize()
}

// Dial connects to a BGP speaker at addr ("host:port"), exchanges OPEN and
// KEEPALIVE and returns the established session. ctx bounds the handshake only.
func Dial(ctx context.Context, addr string, o Open) (*Conn, error) {
	if o.HoldTime == 0 {
		o.HoldTime = 90
	}
	if !o.RouterID.Is4() {
		return nil, fmt.Errorf("bgptest: router ID %q must be IPv4", o.RouterID)
	}
	d := net.Dialer{}
	if o.LocalAddr.IsValid() {
		d.LocalAddr = &net.TCPAddr{IP: o.LocalAddr.AsSlice()}
	}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("bgptest: connecting to %s: %w", addr, err)
	}
	// ctx ending interrupts the handshake.
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Now()) })
	err = handshake(nc, o)
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("bgptest: session with %s: %w", addr, err)
	}
	c := &Conn{conn: nc, done: make(chan struct{}), stop: make(chan struct{})}
	c.wg.Add(2)
	go c.read()
	go c.keepalive(time.Duration(o.HoldTime) * time.Second / 3)
	return c, nil
}

func handshake(nc net.Conn, o Open) error {
	open, err := openMessage(o)
	if err != nil {
		return fmt.Errorf("building the OPEN: %w", err)
	}
	if _, err := nc.Write(open); err != nil {
		return fmt.Errorf("sending the OPEN: %w", err)
	}
	for sentKeepalive := false; ; {
		typ, body, err := readMessage(nc)
		if err != nil {
			return fmt.Errorf("waiting for the peer's OPEN and KEEPALIVE: %w", err)
		}
		switch typ {
		case bgp.BGP_MSG_NOTIFICATION:
			return fmt.Errorf("the peer refused the session: %s", decodeNotification(body))
		case bgp.BGP_MSG_OPEN:
			if _, err := nc.Write(Keepalive()); err != nil {
				return fmt.Errorf("sending KEEPALIVE: %w", err)
			}
			sentKeepalive = true
		case bgp.BGP_MSG_KEEPALIVE:
			if sentKeepalive {
				return nil
			}
		}
	}
}

func readMessage(r io.Reader) (uint8, []byte, error) {
	var h [bgp.BGP_HEADER_LENGTH]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n := int(binary.BigEndian.Uint16(h[16:18]))
	if n < bgp.BGP_HEADER_LENGTH {
		return 0, nil, fmt.Errorf("message length %d is shorter than a header", n)
	}
	body := make([]byte, n-bgp.BGP_HEADER_LENGTH)
	if _, err := io.ReadFull(r, body); err != nil {
		return 0, nil, err
	}
	return h[18], body, nil
}

func decodeNotification(body []byte) Notification {
	n := Notification{}
	if len(body) >= 2 {
		n.Code, n.Subcode, n.Data = body[0], body[1], append([]byte(nil), body[2:]...)
	}
	return n
}

func (c *Conn) read() {
	defer c.wg.Done()
	defer close(c.done)
	for {
		typ, body, err := readMessage(c.conn)
		if err != nil {
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			return
		}
		switch typ {
		case bgp.BGP_MSG_NOTIFICATION:
			n := decodeNotification(body)
			c.mu.Lock()
			c.notif = &n
			c.mu.Unlock()
		case bgp.BGP_MSG_KEEPALIVE:
			_ = c.WriteRaw(Keepalive())
		}
	}
}

func (c *Conn) keepalive(every time.Duration) {
	defer c.wg.Done()
	t := time.NewTicker(max(every, 100*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-c.done:
			return
		case <-t.C:
			_ = c.WriteRaw(Keepalive())
		}
	}
}

// WriteRaw sends bytes as they are: one or more messages, or garbage.
func (c *Conn) WriteRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.conn.Write(b); err != nil {
		return fmt.Errorf("bgptest: writing %d bytes: %w", len(b), err)
	}
	return nil
}

// Send writes messages in order, coalescing them into few writes.
func (c *Conn) Send(msgs ...[]byte) error {
	var buf []byte
	for _, m := range msgs {
		if len(buf)+len(m) > 64<<10 {
			if err := c.WriteRaw(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		buf = append(buf, m...)
	}
	if len(buf) == 0 {
		return nil
	}
	return c.WriteRaw(buf)
}

// Notification returns the NOTIFICATION the peer sent, if any.
func (c *Conn) Notification() (Notification, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.notif == nil {
		return Notification{}, false
	}
	return *c.notif, true
}

// Done is closed when the session has ended (the peer closed it, or Close).
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is why the reader stopped (io.EOF when the peer closed the session).
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close drops the TCP connection without a NOTIFICATION, as a crashed speaker
// would, and waits for the session's goroutines.
func (c *Conn) Close() error {
	var err error
	c.closed.Do(func() {
		close(c.stop)
		err = c.conn.Close()
		c.wg.Wait()
	})
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// Cease sends NOTIFICATION Cease/Administrative Shutdown and closes, as a
// speaker shutting down cleanly would.
func (c *Conn) Cease() error {
	_ = c.WriteRaw(Message(bgp.BGP_MSG_NOTIFICATION, []byte{bgp.BGP_ERROR_CEASE, bgp.BGP_ERROR_SUB_ADMINISTRATIVE_SHUTDOWN}))
	return c.Close()
}
