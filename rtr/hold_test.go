package rtr

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/wait"
)

// TestHeldServesAdditions: while a large drop is held, the inventory's
// additions are served (a new node's CIDR gets its ROA at once) and only the
// withdrawals wait; a prefix whose AS changes is not a withdrawal.
func TestHeldServesAdditions(t *testing.T) {
	src, s := serveNodes(t, Config{MaxDropShare: 0.5}, 1, 2, 3, 4)

	src.setNodes(1, 5) // nodes 2-4 replaced by node5: 3 of 4 prefixes lose their origin
	wait.True(t, "held", 20*time.Second, func() bool { return s.Status().Held != nil })
	wait.True(t, "node5's CIDR served", 20*time.Second, func() bool {
		return slices.Contains(roaStrings(s.Status().ROAs), "10.244.5.0/24 AS65010")
	})
	st := s.Status()
	want := []string{"10.244.0.0/16 AS0", "10.244.1.0/24 AS65010", "10.244.2.0/24 AS65010", "10.244.3.0/24 AS65010",
		"10.244.4.0/24 AS65010", "10.244.5.0/24 AS65010"}
	if got := roaStrings(st.ROAs); !slices.Equal(got, want) {
		t.Errorf("held: serving %q, want %q", got, want)
	}
	if st.Held.Withdrawn != 3 || st.Held.Served != 4 {
		t.Errorf("held %+v, want 3 of 4 prefixes withdrawn", st.Held)
	}

	// Node 2 comes back: 2 of 4 prefixes would go, within the share: served, held no more.
	src.setNodes(1, 2, 5)
	wait.True(t, "the smaller drop served", 20*time.Second, func() bool { return s.Status().Held == nil })
	want = []string{"10.244.0.0/16 AS0", "10.244.1.0/24 AS65010", "10.244.2.0/24 AS65010", "10.244.5.0/24 AS65010"}
	if got := roaStrings(s.Status().ROAs); !slices.Equal(got, want) {
		t.Errorf("released: serving %q, want %q", got, want)
	}

	// Every node moves to another AS: every ROA changes, no prefix loses its origin.
	src.setASN(65020)
	want = []string{"10.244.0.0/16 AS0", "10.244.1.0/24 AS65020", "10.244.2.0/24 AS65020", "10.244.5.0/24 AS65020"}
	wait.True(t, "the new AS served", 20*time.Second, func() bool { return slices.Equal(roaStrings(s.Status().ROAs), want) })
	if h := s.Status().Held; h != nil {
		t.Errorf("an AS change was held: %+v", h)
	}
}

// TestUnresolved: a node without a known AS gets no ROA, and its pool no AS0
// ROA (it fails open instead of making the node's routes Invalid); the
// gauge counts it.
func TestUnresolved(t *testing.T) {
	src, s := serveNodes(t, Config{MaxDropShare: 1}, 1, -2)
	st := s.Status()
	if got := roaStrings(st.ROAs); !slices.Equal(got, []string{"10.244.1.0/24 AS65010"}) {
		t.Errorf("serving %q, want node1's CIDR alone (no AS0 over the pool holding node2's)", got)
	}
	if len(st.Unresolved) != 1 || len(st.OpenPools) != 1 || gaugeValue(s.metrics.unresolv) != 1 {
		t.Errorf("unresolved %q, open pools %v, gauge %g: want node2's CIDR and the pod range",
			st.Unresolved, st.OpenPools, gaugeValue(s.metrics.unresolv))
	}
	src.setNodes(1, 2)
	wait.True(t, "the pool's AS0 back", 20*time.Second, func() bool { return s.Status().Count == 3 })
	if st := s.Status(); len(st.Unresolved) != 0 || gaugeValue(s.metrics.unresolv) != 0 {
		t.Errorf("unresolved %q once node2 has an AS", st.Unresolved)
	}
	// /api/v1/roas: empty lists are [], not left out.
	b, err := json.Marshal(s.Status())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"unresolved":[],"openPools":[]`) {
		t.Errorf("status JSON %s: want unresolved and openPools as []", b)
	}
}
