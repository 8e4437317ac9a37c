package index

import (
	"math/rand/v2"
	"net/netip"
	"testing"
)

// TestPrefixMapMatchesMap: random sets and deletes, on a few addresses so
// that probe runs collide and deletion shifts them, agree with a Go map; an
// index too large for the packed table moves IPv4 prefixes to a map.
func TestPrefixMapMatchesMap(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	for round := range 50 {
		m := NewPrefixMap(rnd.IntN(64))
		ref := map[netip.Prefix]int32{}
		prefix := func() netip.Prefix {
			if rnd.IntN(10) == 0 {
				return netip.PrefixFrom(netip.AddrFrom16([16]byte{0xfd, 15: byte(rnd.IntN(16))}), 64+rnd.IntN(2))
			}
			return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, byte(rnd.IntN(8)), byte(rnd.IntN(64))}), 24+rnd.IntN(9))
		}
		for step := range 3000 {
			p := prefix()
			switch op := rnd.IntN(10); {
			case op < 5:
				v := int32(rnd.IntN(1000))
				if round%10 == 9 && step == 2000 {
					v = packedMaxValue + 5 // past the packed table
				}
				m.Set(p, v)
				ref[p] = v
			case op < 8:
				m.Del(p)
				delete(ref, p)
			}
			want, wantOK := ref[p]
			if got, ok := m.Get(p); ok != wantOK || got != want {
				t.Fatalf("round %d step %d: get(%s) = %d, %v; want %d, %v", round, step, p, got, ok, want, wantOK)
			}
		}
		if m.Len() != len(ref) {
			t.Fatalf("round %d: len %d, want %d", round, m.Len(), len(ref))
		}
		for p, v := range ref {
			if got, ok := m.Get(p); !ok || got != v {
				t.Fatalf("round %d: get(%s) = %d, %v; want %d", round, p, got, ok, v)
			}
		}
		heads := 0
		m.Heads(func(int32) { heads++ })
		if heads != len(ref) {
			t.Fatalf("round %d: %d heads, want %d", round, heads, len(ref))
		}
	}
}
