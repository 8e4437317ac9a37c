// Package loopback finds free TCP ports on 127.0.0.1 for tests.
package loopback

import (
	"net"
	"strconv"
	"sync"
	"testing"
)

// given holds the ports this test process has handed out: the kernel may give
// a port closed a moment ago again, and two FreePort calls in a row then
// gave one test's BGP listener and HTTP server the same port.
var given = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// FreeAddr returns "127.0.0.1:PORT" for a port nothing listens on right now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(int(FreePort(t))))
}

// FreePort returns a TCP port on 127.0.0.1 that nothing listens on right now
// and that this process has not handed out before.
func FreePort(t testing.TB) int32 {
	t.Helper()
	given.Lock()
	defer given.Unlock()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if !given.ports[port] {
			given.ports[port] = true
			return int32(port)
		}
	}
	t.Fatal("no TCP port on 127.0.0.1 that this test process has not handed out already")
	return 0
}
