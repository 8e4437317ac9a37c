package rib

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortPaths4 compares the store's order of IPv4 paths with a comparison
// sort, on tables where every byte varies and where most bytes are the same for
// all paths.
func TestSortPaths4(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		n    int
		key  func() uint64
		id   func() uint32
	}{
		{"small", 100, r.Uint64, r.Uint32},
		{"random", 10_000, r.Uint64, r.Uint32},
		{"pod CIDRs, one peer, no ADD-PATH", 10_000,
			func() uint64 { return (10<<24|uint64(r.IntN(1<<20))<<4)<<32 | 28<<24 }, func() uint32 { return 0 }},
		{"few prefixes, many path IDs", 10_000,
			func() uint64 { return uint64(r.IntN(4)) << 32 }, func() uint32 { return uint32(r.IntN(8)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := make([]path4, tc.n)
			for i := range ps {
				ps[i] = path4{key: tc.key(), id: tc.id(), v: uint32(i)}
			}
			want := slices.Clone(ps)
			slices.SortStableFunc(want, func(a, b path4) int {
				if a.key != b.key {
					return cmp.Compare(a.key, b.key)
				}
				return cmp.Compare(a.id, b.id)
			})
			got := (&sortedPaths{v4: ps}).sorted4()
			for i := range got {
				if got[i].key != want[i].key || got[i].id != want[i].id {
					t.Fatalf("at %d: key %x id %d, want key %x id %d", i, got[i].key, got[i].id, want[i].key, want[i].id)
				}
			}
		})
	}
}
