package main

import (
	"flag"
	"testing"

	"github.com/routewarden/routewarden/internal/testkube"
)

// This package's tests are routewarden's end-to-end tests: a real
// kube-apiserver and etcd, GoBGP speakers as nodes, FRR and BIRD as ToRs,
// Alertmanager, and the CLI (cmd/routewarden/cli) run in-process or as the
// built binary; and the golden files of check whose dumps they take. The
// CLI's unit, golden and conformance tests are cli's.

// e2eParallel is how many end-to-end tests run at once unless -parallel
// says otherwise. They mostly wait (outages of 30 s to 2 min, warm-ups,
// debounces), so more of them than the default GOMAXPROCS share the
// cores: on 2 cores the package took 359 s with 2 at once, 190 s with 4.
const e2eParallel = "4"

// TestMain runs the tests e2eParallel at a time and stops the control
// planes they shared (testkube.Shared).
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", e2eParallel); err != nil {
			panic(err)
		}
	}
	testkube.Main(m)
}
