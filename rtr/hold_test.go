package rtr

import (
	"slices"
	"testing"
	"time"

	"github.com/routewarden/routewarden/internal/wait"
)

// TestHeldServesAdditions: while a large drop is held, the inventory's
// additions are served (a new node's CIDR gets its ROA at once) and only the
// withdrawals wait; a prefix whose AS changes is not a withdrawal.
func TestHeldServesAdditions(t *testing.T) {
	src := &memSource{}
	src.setNodes(1, 2, 3, 4)
	s := startServer(t, src, Config{MaxDropShare: 0.5})
	wait.True(t, "the first set", 20*time.Second, func() bool { return s.Status().Ready })

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
