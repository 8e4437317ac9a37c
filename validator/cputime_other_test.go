//go:build !unix

package validator

// cpuNanos is unknown here; the benchmarks then report 0 CPU time.
func cpuNanos() int64 { return 0 }
