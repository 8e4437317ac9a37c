package main

import (
	"fmt"
	"io"
	"net"
)

// The gobgpd-bmp collector is bare gobgpd with a BMP server configured
// (pre-policy route monitoring, as routewarden's collector sets up its own
// GoBGP) and a consumer that reads and discards what GoBGP sends. It measures
// what GoBGP itself pays for being watched — a clone of every path and a
// copy of the peer's configuration per UPDATE on its serial loop — apart
// from what routewarden does with the messages.

// bmpServerConfig is the gobgpd configuration of a BMP server on port.
func bmpServerConfig(port int) string {
	return fmt.Sprintf(`
[[bmp-servers]]
  [bmp-servers.config]
    address = "127.0.0.1"
    port = %d
    route-monitoring-policy = "pre-policy"
`, port)
}

// discardBMP is a BMP station that reads everything and keeps nothing.
type discardBMP struct{ ln net.Listener }

func startDiscardBMP() (*discardBMP, int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, 0, fmt.Errorf("listening for gobgpd's BMP client: %w", err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(io.Discard, c)
			}()
		}
	}()
	return &discardBMP{ln: ln}, ln.Addr().(*net.TCPAddr).Port, nil
}

func (d *discardBMP) stop() { d.ln.Close() }
