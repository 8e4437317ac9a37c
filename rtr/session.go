package rtr

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/routewarden/routewarden/validator/roa"
)

// ClientStatus is a connected router, for the API and the status page.
type ClientStatus struct {
	Addr      string    `json:"address"`
	Connected time.Time `json:"connected"`
	// Version is the negotiated protocol version (-1 before the first query).
	Version   int       `json:"version"`
	LastQuery time.Time `json:"lastQuery,omitzero"`
	// LastQueryType is "reset" or "serial".
	LastQueryType string `json:"lastQueryType,omitempty"`
	// Serial is the serial the router was last brought to.
	Serial uint32 `json:"serial"`
}

// session is one router's connection. Its own goroutines read and write;
// a router that lags or stops reading only ever blocks its own session.
type session struct {
	srv       *Server
	conn      net.Conn
	client    netip.Addr
	router    bool // from rtr.routers
	connected time.Time
	w         *bufio.Writer
	notify    chan struct{} // coalesced: a Serial Notify is due
	urgent    chan struct{} // coalesced: a Serial Notify is due at once (the serial lets routes in)

	mu      sync.Mutex
	status  ClientStatus
	evicted string // why the server closed it for another session ("" while it is not)
}

// deadlineWriter gives every write to the connection a deadline.
type deadlineWriter struct {
	conn    net.Conn
	timeout time.Duration
}

func (d deadlineWriter) Write(b []byte) (int, error) {
	_ = d.conn.SetWriteDeadline(time.Now().Add(d.timeout))
	return d.conn.Write(b)
}

func newSession(s *Server, conn net.Conn, client netip.Addr) *session {
	now := time.Now()
	return &session{srv: s, conn: conn, client: client, router: s.isRouter(client), connected: now,
		notify: make(chan struct{}, 1), urgent: make(chan struct{}, 1),
		w:      bufio.NewWriterSize(deadlineWriter{conn, s.cfg.WriteTimeout}, 4<<10),
		status: ClientStatus{Addr: conn.RemoteAddr().String(), Connected: now, Version: -1}}
}

// evict closes the session to make room for another.
func (s *session) evict(reason string) {
	s.mu.Lock()
	s.evicted = reason
	s.mu.Unlock()
	s.conn.Close()
}

func (s *session) evictedFor() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.evicted
}

// lastActive is when the router last asked (or connected).
func (s *session) lastActive() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status.LastQuery.After(s.connected) {
		return s.status.LastQuery
	}
	return s.connected
}

func (s *session) snapshot() ClientStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

func (s *session) version() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status.Version
}

// errClosing ends a session after an Error Report was sent.
var errClosing = errors.New("closing after an Error Report")

// run serves the session until the router leaves, errs, or ctx ends.
func (s *session) run(ctx context.Context) error {
	pdus := make(chan PDU)
	readErr := make(chan error, 1)
	done := make(chan struct{}) // the reader never outlives the session
	defer close(done)
	// A router asks at once; then each PDU's rest must follow its header
	// within PDUTimeout, and none may be longer than maxRouterPDULen.
	_ = s.conn.SetReadDeadline(time.Now().Add(s.srv.cfg.PDUTimeout))
	r := &Reader{r: s.conn, buf: make([]byte, 64), maxLen: maxRouterPDULen, conn: s.conn, bodyTimeout: s.srv.cfg.PDUTimeout}
	go func() {
		for {
			p, err := r.Read()
			if err != nil {
				readErr <- err
				return
			}
			select {
			case pdus <- p:
			case <-done:
				return
			}
		}
	}()
	var pending <-chan time.Time // when a rate-limited Serial Notify is due
	var last time.Time           // when the last one was sent
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-readErr:
			var de *DecodeError
			if errors.As(err, &de) && len(de.PDU) > 1 && de.PDU[1] == TypeErrorReport {
				// Never an Error Report for an Error Report (RFC 8210 section 5.11): just close.
				s.srv.metrics.errorReport(s.client, "received", "unreadable")
				return fmt.Errorf("the router sent an Error Report that cannot be read: %s", de.Msg)
			}
			if de != nil {
				return s.report(de.Code, de.PDU, de.Msg)
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case p := <-pdus:
			if err := s.handle(p); err != nil {
				return err
			}
		case <-s.urgent:
			pending = nil // the current serial carries whatever was pending too
			if err := s.serialNotify(&last); err != nil {
				return err
			}
		case <-s.notify:
			if pending != nil {
				continue // coalesced into the notify due
			}
			if wait := time.Until(last.Add(s.srv.cfg.NotifyInterval)); !last.IsZero() && wait > 0 {
				pending = time.After(wait)
				continue
			}
			if err := s.serialNotify(&last); err != nil {
				return err
			}
		case <-pending:
			pending = nil
			if err := s.serialNotify(&last); err != nil {
				return err
			}
		}
	}
}

// serialNotify tells the router the current serial, unless it has not
// asked yet or already holds it; last is when a notify was last sent.
func (s *session) serialNotify(last *time.Time) error {
	st := s.snapshot()
	snap := s.srv.cache.snapshot()
	if st.Version < 0 || !st.LastQuery.IsZero() && st.Serial == snap.serial {
		return nil
	}
	*last = time.Now()
	return s.send(PDU{Version: uint8(st.Version), Type: TypeSerialNotify, SessionID: snap.session, Serial: snap.serial})
}

// handle answers one PDU from the router.
func (s *session) handle(p PDU) error {
	s.mu.Lock()
	v := s.status.Version
	if v < 0 && (p.Type == TypeResetQuery || p.Type == TypeSerialQuery) {
		v, s.status.Version = int(p.Version), int(p.Version)
	}
	s.mu.Unlock()
	raw := p.Append(nil)
	switch {
	case p.Type == TypeErrorReport: // whatever its version: never answered with an Error Report
		s.srv.metrics.errorReport(s.client, "received", strconv.Itoa(int(p.ErrCode)))
		return fmt.Errorf("the router reports error %d: %s", p.ErrCode, p.ErrText)
	case v >= 0 && int(p.Version) != v:
		return s.report(ErrUnexpectedPDUVersion, raw, fmt.Sprintf("version %d PDU in a version %d session", p.Version, v))
	case p.Type != TypeResetQuery && p.Type != TypeSerialQuery:
		return s.report(ErrInvalidRequest, raw, fmt.Sprintf("a router does not send PDU type %d", p.Type))
	}
	kind := "reset"
	if p.Type == TypeSerialQuery {
		kind = "serial"
	}
	s.srv.metrics.queries.WithLabelValues(s.client.String(), kind).Inc()
	s.srv.metrics.lastQuery.WithLabelValues(s.client.String()).SetToCurrentTime()
	snap := s.srv.cache.snapshot()
	ver := uint8(v)
	if !snap.ready { // not fatal (RFC 8210 section 12): the router asks again, or on the Serial Notify to come
		s.srv.metrics.errorReport(s.client, "sent", strconv.Itoa(int(ErrNoData)))
		return s.send(PDU{Version: ver, Type: TypeErrorReport, ErrCode: ErrNoData, ErrPDU: raw,
			ErrText: "the cluster's ROAs are not known yet (the inventory has not synced)"})
	}
	var withdrawn, announced []roa.ROA
	serial := snap.serial
	if p.Type == TypeSerialQuery {
		var ok bool
		withdrawn, announced, serial, ok = s.srv.cache.since(p.SessionID, p.Serial)
		if !ok {
			s.record(kind, p.Serial)
			return s.send(PDU{Version: ver, Type: TypeCacheReset})
		}
	} else {
		announced = snap.roas
	}
	b := s.w
	if _, err := b.Write((&PDU{Version: ver, Type: TypeCacheResponse, SessionID: snap.session}).Append(nil)); err != nil {
		return err
	}
	var buf []byte
	for _, set := range []struct {
		roas  []roa.ROA
		flags uint8
	}{{withdrawn, 0}, {announced, FlagAnnounce}} {
		for _, r := range set.roas {
			t := TypeIPv4Prefix
			if r.Prefix.Addr().Is6() {
				t = TypeIPv6Prefix
			}
			buf = (&PDU{Version: ver, Type: t, Flags: set.flags, Prefix: r.Prefix, MaxLen: r.MaxLen, ASN: r.ASN}).Append(buf[:0])
			if _, err := b.Write(buf); err != nil {
				return err
			}
		}
	}
	c := s.srv.cfg
	s.record(kind, serial)
	return s.send(PDU{Version: ver, Type: TypeEndOfData, SessionID: snap.session, Serial: serial,
		Refresh: seconds(c.Refresh), Retry: seconds(c.Retry), Expire: seconds(c.Expire)})
}

func seconds(d time.Duration) uint32 { return uint32(d / time.Second) }

func (s *session) record(kind string, serial uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status.LastQuery, s.status.LastQueryType, s.status.Serial = time.Now(), kind, serial
}

// send writes p and flushes everything buffered.
func (s *session) send(p PDU) error {
	if _, err := s.w.Write(p.Append(nil)); err != nil {
		return err
	}
	return s.w.Flush()
}

// report sends an Error Report (in the session's version, or the highest
// this cache speaks), counts it, and ends the session: these RTR errors are
// fatal.
func (s *session) report(code uint16, pdu []byte, text string) error {
	s.srv.metrics.errorReport(s.client, "sent", strconv.Itoa(int(code)))
	v := s.version()
	if v < 0 || code == ErrUnsupportedVersion {
		v = int(MaxVersion)
	}
	_ = s.send(PDU{Version: uint8(v), Type: TypeErrorReport, ErrCode: code, ErrPDU: pdu, ErrText: text})
	return fmt.Errorf("%w %d: %s", errClosing, code, text)
}
