package kube

import (
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/routewarden/routewarden/internal/logbuf"
)

// TestShutdownIsNotAnOutage: once Run's context ends (SIGTERM), the watches
// that end with it neither make the inventory unavailable nor log a warning;
// before that, the same break does both.
func TestShutdownIsNotAnOutage(t *testing.T) {
	var logs logbuf.Buffer
	stopping := make(chan struct{})
	i := &Inventory{log: zerolog.New(&logs), stopping: stopping, status: Status{Synced: true, Available: true}}
	const reason = "watch of nodes ended: context canceled"

	close(stopping)
	i.setStatusLocked(false, reason)
	if !i.status.Available || logs.String() != "" {
		t.Errorf("after the shutdown began: available %v, logged %q", i.status.Available, logs.String())
	}

	i.stopping = nil // running
	i.setStatusLocked(false, reason)
	if i.status.Available || !strings.Contains(logs.String(), `"level":"warn"`) {
		t.Errorf("while running: available %v, logged %q; want unavailable and a warning", i.status.Available, logs.String())
	}
}
