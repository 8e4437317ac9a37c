package rtr

import (
	"net/netip"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// What clients outside rtr.routers may cost in log lines: a burst, then one
// line per logEvery; each line says how many were left out before it. A
// scan of the port (thousands of connections) is then a handful of lines,
// and the counters (routewarden_rtr_refused_total, ..._sessions_evicted_total)
// still count every one.
const (
	logBurst = 10
	logEvery = 10 * time.Second
)

// logThrottle is a token bucket of log lines.
type logThrottle struct {
	every time.Duration
	burst int

	mu         sync.Mutex
	tokens     float64
	last       time.Time
	started    bool
	suppressed int
}

// allow reports whether a line may be written now, and how many were left
// out since the last one written.
func (l *logThrottle) allow(now time.Time) (bool, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.started {
		l.started, l.tokens, l.last = true, float64(l.burst), now
	}
	l.tokens = min(float64(l.burst), l.tokens+float64(now.Sub(l.last))/float64(l.every))
	l.last = now
	if l.tokens < 1 {
		l.suppressed++
		return false, 0
	}
	l.tokens--
	n := l.suppressed
	l.suppressed = 0
	return true, n
}

// clientLog returns ev if a line about client may be written (always for a
// configured router), else nil; n is how many lines were left out before.
func (s *Server) clientLog(client netip.Addr, ev *zerolog.Event) (_ *zerolog.Event, n int) {
	if s.isRouter(client) {
		return ev, 0
	}
	ok, n := s.logs.allow(time.Now())
	if !ok {
		return nil, 0
	}
	return ev, n
}
