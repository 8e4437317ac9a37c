package rtr

import (
	"errors"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/wait"
)

// TestNotifyRateLimit: a serial that only withdraws is notified no more
// than once per NotifyInterval to a router (RFC 8210 section 8.2): the first
// at once, the next ones at the interval's end (coalesced, carrying the then
// current serial); the limit is each router's own. A serial that lets a route
// in (a new node's ROA) is notified at once, whatever the interval.
func TestNotifyRateLimit(t *testing.T) {
	t.Run("withdrawals held back within the interval, additions not", func(t *testing.T) {
		src, s := serveNodes(t, Config{MaxDropShare: 1, NotifyInterval: time.Hour}, 1, 2, 3, 4)
		a := dial(t, s)
		eod := a.reset()
		src.setNodes(1, 2, 3)
		if n := a.read(); n.Type != TypeSerialNotify || n.Serial != eod.Serial+1 {
			t.Fatalf("got %+v, want a Serial Notify for serial %d at once", n, eod.Serial+1)
		}
		src.setNodes(1, 2)
		wait.True(t, "the second serial", 20*time.Second, func() bool { return s.Status().Serial == eod.Serial+2 })
		b := dial(t, s) // a router of its own: its first notify comes at once
		b.reset()
		src.setNodes(1)
		if n := b.read(); n.Type != TypeSerialNotify || n.Serial != eod.Serial+3 {
			t.Fatalf("second router: got %+v, want a Serial Notify for serial %d", n, eod.Serial+3)
		}
		_ = a.conn.SetReadDeadline(time.Now().Add(time.Second))
		p, err := a.r.Read()
		if ne := net.Error(nil); !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("the first router got %+v (%v) within the hour after its last notify", p, err)
		}
		// A new node: both routers hear of it at once, pending withdrawals included.
		src.setNodes(1, 5)
		for _, c := range []*client{a, b} {
			if n := c.read(); n.Type != TypeSerialNotify || n.Serial != eod.Serial+4 {
				t.Fatalf("got %+v, want a Serial Notify for the new node's serial %d at once", n, eod.Serial+4)
			}
		}
	})
	t.Run("a held set's additions at once", func(t *testing.T) {
		src, s := serveNodes(t, Config{MaxDropShare: 0.5, NotifyInterval: time.Hour}, 1, 2, 3, 4)
		c := dial(t, s)
		eod := c.reset()
		src.setNodes(1, 2, 3) // a withdrawal: the interval's one notify
		if n := c.read(); n.Type != TypeSerialNotify || n.Serial != eod.Serial+1 {
			t.Fatalf("got %+v, want a Serial Notify for serial %d", n, eod.Serial+1)
		}
		src.setNodes(1, 5) // 2 of 3 prefixes would go: held, node5's CIDR served, and notified within the hour
		n := c.read()
		if n.Type != TypeSerialNotify || s.Status().Held == nil {
			t.Fatalf("got %+v (held: %v), want a Serial Notify of the held set's addition", n, s.Status().Held)
		}
		c.send(PDU{Version: 1, Type: TypeSerialQuery, SessionID: n.SessionID, Serial: eod.Serial + 1})
		if w, a, _ := c.response(); len(w) != 0 || !slices.Equal(roaStrings(a), []string{"10.244.5.0/24 AS65010"}) {
			t.Errorf("withdrawn %q, announced %q; want node5's CIDR announced, nothing withdrawn", roaStrings(w), roaStrings(a))
		}
	})
	t.Run("sent at the interval's end", func(t *testing.T) {
		src, s := serveNodes(t, Config{MaxDropShare: 1, NotifyInterval: 500 * time.Millisecond}, 1, 2, 3, 4)
		c := dial(t, s)
		eod := c.reset()
		src.setNodes(1, 2, 3)
		if n := c.read(); n.Type != TypeSerialNotify || n.Serial != eod.Serial+1 {
			t.Fatalf("got %+v, want a Serial Notify for serial %d at once", n, eod.Serial+1)
		}
		for i, nodes := range [][]int{{1, 2}, {1}} {
			src.setNodes(nodes...)
			wait.True(t, "the next serial", 20*time.Second, func() bool { return s.Status().Serial == eod.Serial+2+uint32(i) })
		}
		// However the changes fall into intervals, the notifies end at the last serial.
		for serial := eod.Serial + 1; serial != eod.Serial+3; {
			n := c.read()
			if n.Type != TypeSerialNotify || n.Serial <= serial || n.Serial > eod.Serial+3 {
				t.Fatalf("got %+v after serial %d, want a Serial Notify up to serial %d", n, serial, eod.Serial+3)
			}
			serial = n.Serial
		}
	})
}
