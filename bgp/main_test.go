package bgp

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// waitingTests is how many of the package's parallel tests run at once
// unless -test.parallel says otherwise.
const waitingTests = 8

// TestMain lets more parallel tests run at once than go test's default,
// GOMAXPROCS, which suits tests that compute. These mostly wait: a GoBGP
// speaker connects 1.5-2 s after it starts, graceful-restart times run out,
// and some tests watch that nothing happens for seconds; on 2 cores the
// default left both idle most of the time (the quick tier's bgp took 60 s
// instead of 25 s). The tests that must run alone (heap measurements,
// goroutine leak checks) do not call t.Parallel, so they run before any
// parallel one starts. An explicit -parallel wins.
func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		if err := flag.Set("test.parallel", strconv.Itoa(max(waitingTests, runtime.GOMAXPROCS(0)))); err != nil {
			panic(err)
		}
	}
	os.Exit(m.Run())
}
