package main

import "testing"

// TestMedianBenches: the runs of one benchmark (-count 3) become one entry
// whose metrics are the medians, in the order the benchmarks first appear.
func TestMedianBenches(t *testing.T) {
	out := []byte(`pkg: example.com/p
BenchmarkA-2   	       2	 300 ns/op	 10 B/op
BenchmarkB-2   	       2	 5 ns/op
BenchmarkA-2   	       2	 100 ns/op	 30 B/op
BenchmarkA-2   	       2	 200 ns/op	 20 B/op
BenchmarkB-2   	       2	 7 ns/op
`)
	got := medianBenches(parseGoBench(out))
	if len(got) != 2 || got[0].Name != "BenchmarkA" || got[1].Name != "BenchmarkB" {
		t.Fatalf("got %+v, want A then B", got)
	}
	if a := got[0].Metrics; a["ns/op"] != 200 || a["B/op"] != 20 {
		t.Errorf("A: %v, want 200 ns/op and 20 B/op", a)
	}
	if b := got[1].Metrics; b["ns/op"] != 6 {
		t.Errorf("B: %v, want 6 ns/op (the mean of the middle two)", b)
	}
}
