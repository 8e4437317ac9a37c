package rtr

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/internal/wait"
)

// TestListenerFailure: when the listener fails (not through shutdown), Run
// returns its error instead of waiting for ctx.
func TestListenerFailure(t *testing.T) {
	src := &memSource{}
	src.setNodes(1)
	s, err := New(Config{Listen: "127.0.0.1:0", Poll: 20 * time.Millisecond}, src, zerolog.Nop(), prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	wait.True(t, "the first set", 20*time.Second, func() bool { return s.Status().Ready })
	s.ln.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Run returned nil after its listener failed")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run still running 20s after its listener failed")
	}
}
