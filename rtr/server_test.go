package rtr

import (
	"slices"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/wait"
)

// TestResetAndSerial: a Reset Query gets the whole set; a change sends a
// Serial Notify, and a Serial Query gets only the change, in both versions.
func TestResetAndSerial(t *testing.T) {
	for _, version := range []uint8{Version0, Version1} {
		t.Run("version "+itoa(uint32(version)), func(t *testing.T) {
			src := &memSource{}
			src.setNodes(1, 2)
			s := startServer(t, src, Config{MaxDropShare: 1})
			wait.True(t, "the first set", 20*time.Second, func() bool { return s.Status().Ready })
			c := dial(t, s)
			c.send(PDU{Version: version, Type: TypeResetQuery})
			_, announced, eod := c.response()
			want := []string{"10.244.0.0/16 AS0", "10.244.1.0/24 AS65010", "10.244.2.0/24 AS65010"}
			if got := roaStrings(announced); !slices.Equal(got, want) {
				t.Fatalf("reset: %q, want %q", got, want)
			}
			if eod.Version != version || version == Version1 && (eod.Refresh != 60 || eod.Retry != 30 || eod.Expire != 600) {
				t.Errorf("End of Data %+v", eod)
			}
			src.setNodes(1, 3)
			n := c.read()
			if n.Type != TypeSerialNotify || n.Serial != eod.Serial+1 || n.Version != version {
				t.Fatalf("got %+v, want a Serial Notify for serial %d", n, eod.Serial+1)
			}
			c.send(PDU{Version: version, Type: TypeSerialQuery, SessionID: eod.SessionID, Serial: eod.Serial})
			withdrawn, announced, eod2 := c.response()
			if w, a := roaStrings(withdrawn), roaStrings(announced); !slices.Equal(w, []string{"10.244.2.0/24 AS65010"}) ||
				!slices.Equal(a, []string{"10.244.3.0/24 AS65010"}) || eod2.Serial != n.Serial {
				t.Errorf("serial: withdrawn %q announced %q at %d", w, a, eod2.Serial)
			}
			// A serial the cache never had, or another session's, is a Cache Reset.
			c.send(PDU{Version: version, Type: TypeSerialQuery, SessionID: eod.SessionID + 1, Serial: eod.Serial})
			if p := c.read(); p.Type != TypeCacheReset {
				t.Errorf("other session: got %+v, want a Cache Reset", p)
			}
		})
	}
}

// TestBadClients: each misbehaving client gets its Error Report and is
// closed; a client that never reads, one that stays silent and ones that
// disconnect mid-way do not keep a good router from its notify and answers.
func TestBadClients(t *testing.T) {
	src := &memSource{}
	src.setNodes(1)
	s := startServer(t, src, Config{MaxDropShare: 1, WriteTimeout: time.Second, PDUTimeout: time.Minute})
	wait.True(t, "the first set", 20*time.Second, func() bool { return s.Status().Ready })
	for _, tc := range []struct {
		name string
		raw  []byte
		code uint16
	}{
		{"garbage", []byte("GET / HTTP/1.1\r\n\r\n"), ErrCorruptData},
		{"version 2", []byte{2, 2, 0, 0, 0, 0, 0, 8}, ErrUnsupportedVersion},
		{"cache-to-router PDU", (&PDU{Version: 1, Type: TypeCacheReset}).Append(nil), ErrInvalidRequest},
		{"unknown type", []byte{1, 42, 0, 0, 0, 0, 0, 8}, ErrUnsupportedPDUType},
		{"version changed within the session", append((&PDU{Version: 1, Type: TypeResetQuery}).Append(nil),
			(&PDU{Version: 0, Type: TypeResetQuery}).Append(nil)...), ErrUnexpectedPDUVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, s)
			if _, err := c.conn.Write(tc.raw); err != nil {
				t.Fatal(err)
			}
			p := c.read()
			for p.Type != TypeErrorReport && p.Type != TypeSerialNotify && p.Type != TypeCacheReset {
				p = c.read() // the answer to a good query first
			}
			if p.Type != TypeErrorReport || p.ErrCode != tc.code {
				t.Fatalf("got %+v, want an Error Report with code %d", p, tc.code)
			}
			if !c.closed() {
				t.Error("the session stayed open after the Error Report")
			}
		})
	}
	// A client that asks for everything over and over and never reads (its
	// session ends at the write timeout), and one that says nothing.
	many := make([]int, 250)
	for i := range many {
		many[i] = i + 1
	}
	src.setNodes(many...)
	wait.True(t, "the large set", 20*time.Second, func() bool { return s.Status().Count == 251 })
	lagger := dial(t, s)
	var queries []byte
	for range 5000 {
		queries = (&PDU{Version: 1, Type: TypeResetQuery}).Append(queries)
	}
	go func() { _, _ = lagger.conn.Write(queries) }()
	_ = dial(t, s)
	// Clients that leave in the middle: after a query, and inside a PDU.
	for _, raw := range [][]byte{(&PDU{Version: 1, Type: TypeResetQuery}).Append(nil), {1, 2, 0, 0, 0, 0}} {
		gone := dial(t, s)
		if _, err := gone.conn.Write(raw); err != nil {
			t.Fatal(err)
		}
		gone.conn.Close()
	}
	good := dial(t, s)
	good.send(PDU{Version: 1, Type: TypeResetQuery})
	_, _, eod := good.response()
	src.setNodes(append(many, 251)...)
	if n := good.read(); n.Type != TypeSerialNotify {
		t.Fatalf("got %+v, want a Serial Notify", n)
	}
	good.send(PDU{Version: 1, Type: TypeSerialQuery, SessionID: eod.SessionID, Serial: eod.Serial})
	if _, a, _ := good.response(); len(a) != 1 {
		t.Errorf("announced %v, want node2's CIDR", a)
	}
	wait.True(t, "the lagging client dropped", 60*time.Second, func() bool {
		return !slices.ContainsFunc(s.Status().Clients, func(c ClientStatus) bool {
			return c.Addr == lagger.conn.LocalAddr().String()
		})
	})
	if n := len(s.Status().Clients); n != 2 {
		t.Errorf("%d clients, want the good and the silent one", n)
	}
}

// TestFrozenAndHeld: while the inventory is unavailable the set does not
// change; a drop larger than MaxDropShare is held until it shrinks.
func TestFrozenAndHeld(t *testing.T) {
	src := &memSource{}
	src.setNodes(1, 2, 3, 4)
	s := startServer(t, src, Config{MaxDropShare: 0.5})
	wait.True(t, "the first set", 20*time.Second, func() bool { return s.Status().Ready })
	serial := s.Status().Serial
	src.setNodes(1)
	src.setAvailable(false)
	wait.True(t, "frozen", 20*time.Second, func() bool { return s.Status().Frozen != "" })
	if st := s.Status(); st.Serial != serial || st.Count != 5 {
		t.Fatalf("frozen set changed: serial %d count %d", st.Serial, st.Count)
	}
	src.setAvailable(true) // 3 of 5 ROAs would go: held
	wait.True(t, "held", 20*time.Second, func() bool { return s.Status().Held != nil })
	if st := s.Status(); st.Serial != serial || st.Held.Withdrawn != 3 {
		t.Fatalf("held set served: %+v", st)
	}
	src.setNodes(1, 2, 3) // 1 of 5: served
	wait.True(t, "the smaller drop served", 20*time.Second, func() bool {
		st := s.Status()
		return st.Held == nil && st.Count == 4
	})
}

// TestNoDataYet: before the inventory first synced, a query gets No Data
// Available and the session stays open; the first set brings a Serial Notify.
func TestNoDataYet(t *testing.T) {
	src := &memSource{}
	src.setNodes(1)
	src.setAvailable(false)
	s := startServer(t, src, Config{MaxDropShare: 1})
	c := dial(t, s)
	c.send(PDU{Version: 1, Type: TypeResetQuery})
	if p := c.read(); p.Type != TypeErrorReport || p.ErrCode != ErrNoData {
		t.Fatalf("got %+v, want No Data Available", p)
	}
	src.setAvailable(true)
	if p := c.read(); p.Type != TypeSerialNotify {
		t.Fatalf("got %+v, want a Serial Notify once the set is known", p)
	}
	c.send(PDU{Version: 1, Type: TypeResetQuery})
	if _, a, _ := c.response(); len(a) != 2 {
		t.Errorf("announced %v, want the pod range and node1's CIDR", a)
	}
}

// TestHoldDrop: a held drop is served once it has persisted for HoldDrop.
func TestHoldDrop(t *testing.T) {
	src := &memSource{}
	src.setNodes(1, 2, 3, 4)
	s := startServer(t, src, Config{MaxDropShare: 0.5, HoldDrop: 2 * time.Second})
	wait.True(t, "the first set", 20*time.Second, func() bool { return s.Status().Ready })
	src.setNodes(1)
	wait.True(t, "held", 20*time.Second, func() bool { return s.Status().Held != nil })
	wait.True(t, "served after rtr.holdDrop", 20*time.Second, func() bool {
		st := s.Status()
		return st.Held == nil && st.Count == 2
	})
}
