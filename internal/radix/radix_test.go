package radix

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

type item struct {
	k   uint64
	pos int
}

// TestSort compares with a stable comparison sort, on keys where every byte
// varies, where most bytes agree, and with many equal keys.
func TestSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		n    int
		key  func() uint64
	}{
		{"empty", 0, r.Uint64},
		{"one", 1, r.Uint64},
		{"random", 10_000, r.Uint64},
		{"one byte varies", 10_000, func() uint64 { return 0xab<<56 | uint64(r.IntN(256))<<8 | 7 }},
		{"few distinct keys", 10_000, func() uint64 { return uint64(r.IntN(4)) << 40 }},
		{"all equal", 1000, func() uint64 { return 42 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := make([]item, tc.n)
			for i := range s {
				s[i] = item{k: tc.key(), pos: i}
			}
			want := slices.Clone(s)
			slices.SortStableFunc(want, func(a, b item) int { return cmp.Compare(a.k, b.k) })
			got := Sort(s, func(it *item) uint64 { return it.k })
			if !slices.Equal(got, want) {
				t.Fatalf("radix order differs from a stable sort's")
			}
		})
	}
}
