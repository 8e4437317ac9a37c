package bgp

import (
	"github.com/osrg/gobgp/v3/pkg/log"
	"github.com/rs/zerolog"
)

// gobgpLogger routes GoBGP's logs into zerolog. GoBGP's Fatal and Panic are
// logged as errors: nothing in a library may end the process.
type gobgpLogger struct{ l zerolog.Logger }

func (g gobgpLogger) with(e *zerolog.Event, msg string, fields log.Fields) {
	if e == nil { // level disabled
		return
	}
	for k, v := range fields {
		e = e.Interface(k, v)
	}
	e.Msg(msg)
}

func (g gobgpLogger) Panic(msg string, f log.Fields) { g.with(g.l.Error(), msg, f) }
func (g gobgpLogger) Fatal(msg string, f log.Fields) { g.with(g.l.Error(), msg, f) }
func (g gobgpLogger) Error(msg string, f log.Fields) { g.with(g.l.Error(), msg, f) }
func (g gobgpLogger) Warn(msg string, f log.Fields)  { g.with(g.l.Warn(), msg, f) }
func (g gobgpLogger) Info(msg string, f log.Fields)  { g.with(g.l.Debug(), msg, f) }
func (g gobgpLogger) Debug(msg string, f log.Fields) { g.with(g.l.Trace(), msg, f) }
func (g gobgpLogger) SetLevel(log.LogLevel)          {}

// GetLevel tells GoBGP the most verbose of its levels that zerolog would
// write (GoBGP's Info and Debug are logged one zerolog level lower, as above).
// GoBGP builds the fields of its per-UPDATE debug messages only when this says
// Debug: a collector not tracing skips that work for every route received.
func (g gobgpLogger) GetLevel() log.LogLevel {
	switch lvl := g.l.GetLevel(); {
	case lvl <= zerolog.TraceLevel:
		return log.DebugLevel
	case lvl <= zerolog.DebugLevel:
		return log.InfoLevel
	case lvl <= zerolog.WarnLevel:
		return log.WarnLevel
	default:
		return log.ErrorLevel
	}
}
