package bmp

import (
	"errors"
	"fmt"
	"io"
	"net/netip"

	gbmp "github.com/osrg/gobgp/v4/pkg/packet/bmp"

	"github.com/routewarden/routewarden/bgp/rib"
	"github.com/routewarden/routewarden/bgp/wire"
)

// errTerminated ends a session the router closed with a Termination.
var errTerminated = errors.New("terminated by the router")

// session is one BMP connection's state.
type session struct {
	st      *Station
	router  netip.Addr
	sysName string
	sysDesc string
	peers   map[rib.Peer]*peerState
	rm      *rib.RouteMonitoring // applies upd
	upd     wire.Update
	alt     wire.Update // the other decoding of an ambiguous UPDATE
}

func newSession(st *Station, router netip.Addr) *session {
	s := &session{st: st, router: router, peers: map[rib.Peer]*peerState{},
		rm: rib.NewRouteMonitoring(st.store, st.metrics.ignore)}
	st.mu.Lock()
	st.latest[router] = s
	st.mu.Unlock()
	return s
}

// run reads messages until the connection ends or one is refused.
func (s *session) run(r io.Reader) error {
	rd := wire.NewBMPReader(r)
	for {
		msg, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := s.handle(msg); err != nil {
			return err
		}
	}
}

// handle processes one complete message; an error ends the session.
func (s *session) handle(msg []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("BMP message type %d: decoder panic: %v", msg[5], r)
		}
	}()
	typ := msg[5]
	s.st.metrics.message(typ)
	switch typ {
	case gbmp.BMP_MSG_ROUTE_MONITORING:
		err = s.routeMonitoring(msg)
	case gbmp.BMP_MSG_STATISTICS_REPORT:
		err = s.stats(msg)
	case gbmp.BMP_MSG_PEER_DOWN_NOTIFICATION:
		err = s.peerDown(msg)
	case gbmp.BMP_MSG_PEER_UP_NOTIFICATION:
		err = s.peerUp(msg)
	case gbmp.BMP_MSG_INITIATION:
		err = s.initiation(msg)
	case gbmp.BMP_MSG_TERMINATION:
		err = s.termination(msg)
	default: // Route Mirroring and later types: nothing for routewarden
		s.st.metrics.ignored.WithLabelValues("message-type").Inc()
	}
	if err != nil {
		s.st.metrics.decodeErrors.Inc()
		return fmt.Errorf("BMP %s message: %w", typeName(typ), err)
	}
	return nil
}

func (s *session) initiation(msg []byte) error {
	m, err := gbmp.ParseBMPMessage(msg)
	if err != nil {
		return err
	}
	for _, tlv := range m.Body.(*gbmp.BMPInitiation).Info {
		if v, ok := tlv.(*gbmp.BMPInfoTLVString); ok {
			switch v.Type {
			case gbmp.BMP_INIT_TLV_TYPE_SYS_NAME:
				s.sysName = v.Value
			case gbmp.BMP_INIT_TLV_TYPE_SYS_DESCR:
				s.sysDesc = v.Value
			}
		}
	}
	s.st.log.Info().Str("router", s.router.String()).Str("sysName", s.sysName).Str("sysDescr", s.sysDesc).
		Msg("BMP initiation")
	return nil
}

func (s *session) termination(msg []byte) error {
	m, err := gbmp.ParseBMPMessage(msg)
	if err != nil {
		return err
	}
	ev := s.st.log.Info().Str("router", s.router.String()).Str("sysName", s.sysName)
	for _, tlv := range m.Body.(*gbmp.BMPTermination).Info {
		switch v := tlv.(type) {
		case *gbmp.BMPTermTLVString:
			ev = ev.Str("message", v.Value)
		case *gbmp.BMPTermTLV16:
			ev = ev.Uint16("reason", v.Value)
		}
	}
	ev.Msg("BMP termination")
	return errTerminated
}

// forget drops every peer the session monitored, but those a newer session
// from the same router monitors now (a router that reconnected before the
// old connection was seen to end).
func (s *session) forget() {
	var drop []rib.Peer
	s.st.mu.Lock()
	latest := s.st.latest[s.router]
	if latest == s {
		delete(s.st.latest, s.router)
	}
	for p := range s.peers {
		if latest != nil && latest != s && latest.peers[p] != nil {
			continue
		}
		drop = append(drop, p)
	}
	s.st.mu.Unlock()
	for _, p := range drop {
		s.st.store.Down(p, "down", 0)
		s.st.metrics.forgetPeer(p)
	}
}

func typeName(t uint8) string {
	names := []string{"route monitoring", "statistics report", "peer down", "peer up", "initiation",
		"termination", "route mirroring"}
	if int(t) < len(names) {
		return names[t]
	}
	return fmt.Sprintf("type %d", t)
}
