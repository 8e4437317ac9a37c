// Package loopback finds free TCP ports on 127.0.0.1 for tests.
package loopback

import (
	"net"
	"strconv"
	"testing"
)

// FreeAddr returns "127.0.0.1:PORT" for a port nothing listens on right now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(int(FreePort(t))))
}

// FreePort returns a TCP port on 127.0.0.1 that nothing listens on right now.
func FreePort(t testing.TB) int32 {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return int32(l.Addr().(*net.TCPAddr).Port)
}
