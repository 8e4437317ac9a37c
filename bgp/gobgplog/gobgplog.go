// Package gobgplog routes GoBGP's slog logs into zerolog, for the collector
// and the GoBGP speaker (bgp/speaker) alike.
package gobgplog

import (
	"context"
	"log/slog"

	"github.com/osrg/gobgp/v4/pkg/server"
	"github.com/rs/zerolog"
)

// handler is a slog.Handler that routes GoBGP's logs into zerolog, one
// level lower for GoBGP's Info and Debug (GoBGP is chatty: its Info is our
// Debug, its Debug our Trace). observe, when set, sees every message of Info
// and above before the level filter, with its fields: GoBGP reports protocol
// errors only in its log (the collector counts them, bgp/errorlog.go).
type handler struct {
	l       zerolog.Logger
	attrs   []slog.Attr // from WithAttrs: GoBGP's per-peer logger adds Topic and Key
	group   string
	observe func(level slog.Level, msg string, fields map[string]slog.Value)
}

// Option returns the logger and level GoBGP's LoggerOption takes.
func Option(l zerolog.Logger, observe func(slog.Level, string, map[string]slog.Value)) server.ServerOption {
	lv := &slog.LevelVar{}
	lv.Set(slog.LevelInfo)
	if l.GetLevel() <= zerolog.TraceLevel {
		lv.Set(slog.LevelDebug)
	}
	return server.LoggerOption(slog.New(NewHandler(l, observe)), lv)
}

// NewHandler returns the slog.Handler Option gives GoBGP.
func NewHandler(l zerolog.Logger, observe func(slog.Level, string, map[string]slog.Value)) slog.Handler {
	return &handler{l: l, observe: observe}
}

// Enabled says yes to Info and above (rare messages, some of them counted)
// and to Debug only when zerolog traces: GoBGP logs every UPDATE and every
// rejected path at Debug, and slog skips the record, and formatting its
// fields, when the handler says no.
func (h *handler) Enabled(_ context.Context, lvl slog.Level) bool {
	return lvl >= slog.LevelInfo || h.l.GetLevel() <= zerolog.TraceLevel
}

// Handle counts the record (observe), then logs it.
func (h *handler) Handle(_ context.Context, r slog.Record) error {
	if h.observe != nil && r.Level >= slog.LevelInfo {
		fields := make(map[string]slog.Value, len(h.attrs)+r.NumAttrs())
		for _, a := range h.attrs {
			fields[a.Key] = a.Value.Resolve()
		}
		r.Attrs(func(a slog.Attr) bool {
			fields[h.key(a.Key)] = a.Value.Resolve()
			return true
		})
		h.observe(r.Level, r.Message, fields)
	}
	var e *zerolog.Event
	switch {
	case r.Level >= slog.LevelError:
		e = h.l.Error()
	case r.Level >= slog.LevelWarn:
		e = h.l.Warn()
	case r.Level >= slog.LevelInfo:
		e = h.l.Debug()
	default:
		e = h.l.Trace()
	}
	if e == nil { // level disabled
		return nil
	}
	for _, a := range h.attrs {
		e = field(e, a.Key, a.Value)
	}
	r.Attrs(func(a slog.Attr) bool {
		e = field(e, h.key(a.Key), a.Value)
		return true
	})
	e.Msg(r.Message)
	return nil
}

// field adds one of GoBGP's fields; an error as its message (zerolog would
// write most of GoBGP's errors, structs without exported fields, as {}).
func field(e *zerolog.Event, k string, v slog.Value) *zerolog.Event {
	v = v.Resolve()
	if err, ok := v.Any().(error); ok {
		return e.AnErr(k, err)
	}
	return e.Interface(k, v.Any())
}

// WithAttrs keeps attrs for every record of the returned handler.
func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	n := *h
	n.attrs = make([]slog.Attr, 0, len(h.attrs)+len(attrs))
	n.attrs = append(n.attrs, h.attrs...)
	for _, a := range attrs {
		n.attrs = append(n.attrs, slog.Attr{Key: h.key(a.Key), Value: a.Value})
	}
	return &n
}

// WithGroup prefixes the keys of later attributes with name.
func (h *handler) WithGroup(name string) slog.Handler {
	n := *h
	n.group = h.key(name)
	return &n
}

func (h *handler) key(k string) string {
	if h.group == "" {
		return k
	}
	return h.group + "." + k
}
