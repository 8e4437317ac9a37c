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
		{"small", insertionMax, r.Uint64},
		{"low byte only", 10_000, func() uint64 { return uint64(r.IntN(256)) }},
		{"addresses with a tie-breaker", 50_000, func() uint64 {
			return (10<<24|uint64(r.IntN(1<<20))<<4)<<32 | 28<<24 | uint64(r.IntN(3))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := make([]item, tc.n)
			for i := range s {
				s[i] = item{k: tc.key(), pos: i}
			}
			want := slices.Clone(s)
			slices.SortStableFunc(want, func(a, b item) int { return cmp.Compare(a.k, b.k) })
			inPlace := slices.Clone(s)
			got := Sort(s, func(it *item) uint64 { return it.k })
			if !slices.Equal(got, want) {
				t.Fatalf("radix order differs from a stable sort's")
			}
			// SortInPlace is not stable: the keys in order, the same elements.
			SortInPlace(inPlace, func(it *item) uint64 { return it.k })
			if !slices.IsSortedFunc(inPlace, func(a, b item) int { return cmp.Compare(a.k, b.k) }) {
				t.Fatalf("SortInPlace: not sorted by key")
			}
			slices.SortStableFunc(inPlace, func(a, b item) int { return cmp.Or(cmp.Compare(a.k, b.k), a.pos-b.pos) })
			if !slices.Equal(inPlace, want) {
				t.Fatalf("SortInPlace lost or duplicated elements")
			}
		})
	}
}
