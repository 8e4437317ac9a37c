// Package accept runs the accept loop of routewarden's own TCP listeners (the
// BMP station, the RTR server): one goroutine per connection from an allowed
// source, transient accept errors waited out, everything stopped with ctx.
package accept

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Options say who may connect and what happens to the others.
type Options struct {
	// What names the listener in errors and logs ("BMP station").
	What string
	// Allowed limits the sources; empty allows every source.
	Allowed []netip.Prefix
	// Refused is called (before the connection is closed) for a source outside Allowed.
	Refused func(remote netip.Addr)
}

// Serve accepts connections on ln until ctx ends (then ln is closed), runs
// handle for each in its own goroutine, and returns once every handle has
// returned. handle owns its connection.
func Serve(ctx context.Context, ln net.Listener, o Options, log zerolog.Logger,
	handle func(ctx context.Context, conn net.Conn, remote netip.Addr)) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return fmt.Errorf("%s: accepting: %w", o.What, err)
			}
			// Out of file descriptors and the like: wait, don't give up.
			log.Warn().Err(err).Msgf("%s: accepting a connection", o.What)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		remote := AddrOf(conn.RemoteAddr())
		if len(o.Allowed) > 0 && !slices.ContainsFunc(o.Allowed, func(p netip.Prefix) bool { return p.Contains(remote) }) {
			if o.Refused != nil {
				o.Refused(remote)
			}
			conn.Close()
			continue
		}
		wg.Go(func() { handle(ctx, conn, remote) })
	}
}

// AddrOf returns a connection's remote (or local) IP, IPv4-mapped addresses unmapped.
func AddrOf(a net.Addr) netip.Addr {
	if ta, ok := a.(*net.TCPAddr); ok {
		ip, _ := netip.AddrFromSlice(ta.IP)
		return ip.Unmap()
	}
	ap, _ := netip.ParseAddrPort(a.String())
	return ap.Addr().Unmap()
}
