package index

import "net/netip"

// HashKey is a prefix as a flat map key: hashing netip.Prefix itself is slow
// (it holds a pointer for the zone), and the engine hashes millions of them.
type HashKey struct {
	addr [16]byte
	bits uint8
}

// HashKeyOf returns p's map key.
func HashKeyOf(p netip.Prefix) HashKey {
	b := p.Bits()
	if p.Addr().Is4() {
		b += 128 // keep 10.0.0.0/8 apart from ::a00:0/8
	}
	return HashKey{addr: p.Addr().As16(), bits: uint8(b)}
}

// SortKey is a masked prefix as integers, in the order of netip's addresses
// and then prefix lengths: V6 orders IPv4 first, as Addr.Compare does; an
// IPv4 address is Lo's low 32 bits.
type SortKey struct { // 24 bytes: the allocation table keeps one for each distinct CIDR
	Hi, Lo uint64
	V6     bool
	Bits   uint8
}

// SortKeyOf returns p's key; ok is false when p is invalid, zoned or not
// masked (host bits set).
func SortKeyOf(p netip.Prefix) (k SortKey, ok bool) {
	a := p.Addr()
	if !p.IsValid() || a.Zone() != "" || p.Masked() != p {
		return SortKey{}, false
	}
	if a.Is4() {
		b := a.As4()
		return SortKey{Lo: uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3]),
			Bits: uint8(p.Bits())}, true
	}
	b := a.As16()
	var hi, lo uint64
	for i := range 8 {
		hi, lo = hi<<8|uint64(b[i]), lo<<8|uint64(b[i+8])
	}
	return SortKey{Hi: hi, Lo: lo, V6: true, Bits: uint8(p.Bits())}, true
}

// Less orders keys by family (IPv4 first, as Addr.Compare does), address
// and prefix length.
func (a SortKey) Less(b SortKey) bool {
	switch {
	case a.V6 != b.V6:
		return b.V6
	case a.Hi != b.Hi:
		return a.Hi < b.Hi
	case a.Lo != b.Lo:
		return a.Lo < b.Lo
	}
	return a.Bits < b.Bits
}

// Holds reports whether prefix a equals or contains prefix b.
func (a SortKey) Holds(b SortKey) bool {
	if a.V6 != b.V6 || a.Bits > b.Bits {
		return false
	}
	width := 32
	if a.V6 {
		width = 128
	}
	host := width - int(a.Bits) // host bits of a, counted from the low end of Hi:Lo
	hi, lo := b.Hi, b.Lo
	switch {
	case host >= 128:
		hi, lo = 0, 0
	case host >= 64:
		hi, lo = hi&^(1<<(host-64)-1), 0
	case host > 0:
		lo &^= 1<<host - 1
	}
	return hi == a.Hi && lo == a.Lo
}
