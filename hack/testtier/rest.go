package main

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// runRest runs each package's rest (its own -run pattern, so that no test
// runs twice) as go test runs packages: as many at once as there are CPUs,
// each package's output printed whole when it ends. It returns how many
// tests ran and the first non-zero exit code.
func runRest(runs []restRun, flags []string, stdout, stderr io.Writer) (ran, code int) {
	var mu sync.Mutex
	next := make(chan restRun)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(runs)) {
		wg.Go(func() {
			for r := range next {
				var out, errOut bytes.Buffer
				args := append(append([]string{"-count=1", "-run", r.pattern}, flags...), r.pkg)
				t, c := goTest(args, &out, &errOut)
				mu.Lock()
				stdout.Write(out.Bytes())
				stderr.Write(errOut.Bytes())
				ran += t.ran
				if c != 0 && code == 0 {
					code = c
				}
				mu.Unlock()
			}
		})
	}
	for _, r := range runs {
		next <- r
	}
	close(next)
	wg.Wait()
	if code != 0 {
		fmt.Fprintln(stderr, "testtier: the rest failed")
	}
	return ran, code
}
