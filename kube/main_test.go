package kube

import (
	"testing"

	"github.com/routewarden/routewarden/internal/testkube"
)

// TestMain stops the control plane the inventory tests shared (testkube.Shared).
// The outage test keeps one of its own: it stops it.
func TestMain(m *testing.M) { testkube.Main(m) }
