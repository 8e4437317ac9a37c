package radix

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSortInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name string
		n    int
		key  func() uint64
	}{
		{"empty", 0, r.Uint64},
		{"one", 1, r.Uint64},
		{"small", insertionMax, r.Uint64},
		{"random", 100_000, r.Uint64},
		{"one byte varies", 10_000, func() uint64 { return 0xab<<56 | uint64(r.IntN(256))<<8 | 7 }},
		{"few distinct keys", 10_000, func() uint64 { return uint64(r.IntN(4)) << 40 }},
		{"low byte only", 10_000, func() uint64 { return uint64(r.IntN(256)) }},
		{"all equal", 1000, func() uint64 { return 42 }},
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
			slices.SortFunc(want, cmpItem)
			SortInPlace(s, func(it *item) uint64 { return it.k })
			if !slices.IsSortedFunc(s, func(a, b item) int { return cmp.Compare(a.k, b.k) }) {
				t.Fatalf("not sorted by key")
			}
			slices.SortStableFunc(s, cmpItem) // same multiset: the elements are a permutation
			if !slices.Equal(s, want) {
				t.Fatalf("elements lost or duplicated")
			}
		})
	}
}

func cmpItem(a, b item) int { return cmp.Or(cmp.Compare(a.k, b.k), cmp.Compare(a.pos, b.pos)) }
