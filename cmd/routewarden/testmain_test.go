package main

import (
	"testing"

	"github.com/routewarden/routewarden/internal/testkube"
)

// This package's tests are routewarden's end-to-end tests: a real
// kube-apiserver and etcd, GoBGP speakers as nodes, FRR and BIRD as ToRs,
// Alertmanager, and the CLI (cmd/routewarden/cli) run in-process or as the
// built binary; and the golden files of check whose dumps they take. The
// CLI's unit, golden and conformance tests are cli's.

// TestMain stops the control planes the end-to-end tests shared (testkube.Shared).
func TestMain(m *testing.M) { testkube.Main(m) }
