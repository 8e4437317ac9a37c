package main

import (
	"strings"
	"testing"
)

// TestWriteBMPBeside: the station's row stands beside BIRD's and
// routewarden's BGP rows of the same run, with routes a second, the median
// ratio to BIRD's time and each trial against BIRD's of the same round.
func TestWriteBMPBeside(t *testing.T) {
	trial := func(c string, n int, held float64) Trial {
		return Trial{Collector: c, Sender: "raw", Workload: "ipv4-1M", N: 1_000_000, Trial: n, HeldSec: held}
	}
	tests := []struct {
		name   string
		trials []Trial
		want   []string
		absent []string
	}{{
		name: "side by side",
		trials: []Trial{trial("routewarden", 1, 5), trial("bird", 1, 0.5), trial("routewarden-bmp", 1, 1),
			trial("routewarden", 2, 6), trial("bird", 2, 0.4), trial("routewarden-bmp", 2, 1.2)},
		want: []string{
			"| ipv4-1M | BIRD (BGP) | 0.450 (0.400–0.500) | 2.22M |",
			"| ipv4-1M | routewarden (BGP) | 5.500 (5.000–6.000) | 182k |",
			"| ipv4-1M | routewarden BMP station | 1.100 (1.000–1.200) | 909k | 0.00 | 0 | 2.44x | 2.00–3.00x |",
		},
	}, {
		name:   "no station in the run: no table",
		trials: []Trial{trial("routewarden", 1, 5), trial("bird", 1, 0.5)},
		absent: []string{"BMP station beside BIRD"},
	}, {
		name:   "a failed station trial is left out",
		trials: []Trial{trial("bird", 1, 0.5), trial("routewarden-bmp", 1, 1), {Collector: "routewarden-bmp", Sender: "raw", Workload: "ipv4-1M", N: 1_000_000, Trial: 2, Err: "timed out"}},
		want:   []string{"| ipv4-1M | routewarden BMP station | 1.000 | 1.00M | 0.00 | 0 | 2.00x | 2.00x |"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			writeBMPBeside(&b, &Results{Trials: tc.trials})
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("missing %q in:\n%s", w, b.String())
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(b.String(), a) {
					t.Errorf("unexpected %q in:\n%s", a, b.String())
				}
			}
		})
	}
}
