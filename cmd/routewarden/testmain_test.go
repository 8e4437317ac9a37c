package main

import (
	"testing"

	"github.com/routewarden/routewarden/internal/testkube"
)

// TestMain stops the control planes the end-to-end tests shared (testkube.Shared).
func TestMain(m *testing.M) { testkube.Main(m) }
