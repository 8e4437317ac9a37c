package cilium

import (
	"fmt"
	"net/netip"
)

// LBPoolPrefixes returns a CiliumLoadBalancerIPPool's blocks as prefixes; a
// start–stop block becomes the smallest set of prefixes that covers it exactly.
func LBPoolPrefixes(p *CiliumLoadBalancerIPPool) ([]netip.Prefix, error) {
	if p.Spec.Disabled {
		return nil, nil
	}
	var out []netip.Prefix
	for i, b := range p.Spec.Blocks {
		switch {
		case b.CIDR != nil:
			out = append(out, b.CIDR.Prefix)
		case b.Start != nil:
			stop := b.Start.Addr
			if b.Stop != nil {
				stop = b.Stop.Addr
			}
			ps, err := RangePrefixes(b.Start.Addr, stop)
			if err != nil {
				return nil, fmt.Errorf("spec.blocks[%d]: %w", i, err)
			}
			out = append(out, ps...)
		default:
			return nil, fmt.Errorf("spec.blocks[%d]: neither cidr nor start is set", i)
		}
	}
	return out, nil
}

// RangePrefixes covers the address range [start, stop] with prefixes.
func RangePrefixes(start, stop netip.Addr) ([]netip.Prefix, error) {
	if start.Is4() != stop.Is4() || stop.Less(start) {
		return nil, fmt.Errorf("%s-%s is not a valid address range", start, stop)
	}
	var out []netip.Prefix
	for cur := start; ; {
		bits := cur.BitLen()
		// Grow the prefix while it stays aligned and inside the range.
		for bits > 0 {
			p, _ := cur.Prefix(bits - 1)
			if p.Addr() != cur || lastAddr(p).Compare(stop) > 0 {
				break
			}
			bits--
		}
		p := netip.PrefixFrom(cur, bits)
		out = append(out, p)
		last := lastAddr(p)
		if last.Compare(stop) >= 0 || !last.Next().IsValid() {
			return out, nil
		}
		cur = last.Next()
	}
}

func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 1 << (7 - i%8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}
