package index

import (
	"math/rand/v2"
	"testing"
)

// TestTable4MatchesMap checks the open-addressing table against a Go map,
// with keys dense enough to collide and grow the table many times.
func TestTable4MatchesMap(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, space := range []uint32{16, 1000, 1 << 31} {
		tab, want := newTable4[int](0), map[uint32]int{}
		for i := range 20_000 {
			k := rnd.Uint32N(space)
			if rnd.IntN(2) == 0 {
				tab.set(k, i)
				want[k] = i
			}
			got, ok := tab.get(k)
			if w, wok := want[k]; got != w || ok != wok {
				t.Fatalf("space %d: get(%d) = %d, %v; want %d, %v", space, k, got, ok, w, wok)
			}
		}
		if len(tab.vals) != len(want) {
			t.Fatalf("space %d: %d values held, want %d", space, len(tab.vals), len(want))
		}
	}
}
