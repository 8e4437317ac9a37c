package main

import (
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/wait"
	"github.com/routewarden/routewarden/rtr"
)

// The RTR sessions TestRTRNodeJoin watches, and the flood it sends while a
// router reconnects.

// rtrClient is a session /api/v1/roas lists.
type rtrClient struct {
	Address       string    `json:"address"`
	Connected     time.Time `json:"connected"`
	LastQueryType string    `json:"lastQueryType"`
	Serial        uint32    `json:"serial"`
}

// routerSessions returns the current serial and the sessions from the
// routers' address (127.0.0.1) that hold it.
func routerSessions(e *e2e) (uint32, []rtrClient, error) {
	var st struct {
		Serial  uint32      `json:"serial"`
		Clients []rtrClient `json:"clients"`
	}
	if err := getJSON(e.api+"/api/v1/roas", &st); err != nil {
		return 0, nil, err
	}
	var out []rtrClient
	for _, c := range st.Clients {
		if strings.HasPrefix(c.Address, "127.0.0.1:") && c.LastQueryType != "" && c.Serial == st.Serial {
			out = append(out, c)
		}
	}
	return st.Serial, out, nil
}

// waitRTRClients waits until n routers hold the current serial.
func waitRTRClients(t *testing.T, e *e2e, n int) {
	t.Helper()
	wait.For(t, fmt.Sprintf("%d routers at the current serial", n), 60*time.Second, func() error {
		serial, cs, err := routerSessions(e)
		if err == nil && len(cs) != n {
			err = fmt.Errorf("serial %d, routers there: %+v", serial, cs)
		}
		return err
	})
}

// floodWhileReconnecting opens 200 connections from 127.0.2.1-200, each
// asking once (a Reset Query) and staying, 100 before BIRD's RTR session is
// restarted and 100 after: BIRD (127.0.0.1, in rtr.routers) must be served
// again all the same.
func floodWhileReconnecting(t *testing.T, e *e2e, rtrAddr string, bird *rovToR) {
	t.Helper()
	query := (&rtr.PDU{Version: 1, Type: rtr.TypeResetQuery}).Append(nil)
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	flood := func(from, to int) {
		var wg sync.WaitGroup
		for i := from; i <= to; i++ {
			wg.Go(func() {
				d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 2, byte(i))}, Timeout: 10 * time.Second}
				conn, err := d.Dial("tcp", rtrAddr)
				if err != nil {
					return
				}
				_, _ = conn.Write(query)
				go func() { _, _ = io.Copy(io.Discard, conn) }()
				mu.Lock()
				conns = append(conns, conn)
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	flood(1, 100)
	restart := time.Now()
	if out, err := bird.birdc("restart", "routewarden"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	flood(101, 200)
	wait.For(t, "BIRD served again after its reconnection amid 200 hostile clients", 60*time.Second, func() error {
		serial, cs, err := routerSessions(e)
		if err == nil && !slices.ContainsFunc(cs, func(c rtrClient) bool { return c.Connected.After(restart) }) {
			err = fmt.Errorf("no new session of BIRD's at serial %d: %+v", serial, cs)
		}
		return err
	})
	t.Logf("BIRD served again %s after its restart, amid 200 hostile connections", time.Since(restart).Round(10*time.Millisecond))
	waitRTRClients(t, e, 2)
	for _, line := range strings.Split(metricsText(t, e.api), "\n") {
		if strings.HasPrefix(line, "routewarden_rtr_refused_total") || strings.HasPrefix(line, "routewarden_rtr_sessions_evicted_total") {
			t.Log(line)
		}
	}
}
