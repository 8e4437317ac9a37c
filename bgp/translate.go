package bgp

import (
	"fmt"
	"net/netip"
	"strconv"

	api "github.com/osrg/gobgp/v3/api"
	"github.com/osrg/gobgp/v3/pkg/apiutil"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/routewarden/routewarden/bgp/dump"
	"github.com/routewarden/routewarden/validator"
)

// isEOR reports whether a watched path is an End-of-RIB marker.
func isEOR(p *api.Path) bool { return p.Nlri == nil && len(p.NlriBinary) == 0 }

// familyName is "ipv4-unicast" or "ipv6-unicast".
func familyName(f *api.Family) string { return apiutil.ToRouteFamily(f).String() }

// Type URLs of the messages toRoute reads straight from their wire bytes.
const (
	urlPrefix      = "type.googleapis.com/apipb.IPAddressPrefix"
	urlNextHop     = "type.googleapis.com/apipb.NextHopAttribute"
	urlMpReach     = "type.googleapis.com/apipb.MpReachNLRIAttribute"
	urlASPath      = "type.googleapis.com/apipb.AsPathAttribute"
	urlCommunities = "type.googleapis.com/apipb.CommunitiesAttribute"
)

// toRoute translates a GoBGP path into the validator's route model. Unicast
// paths (every path a collector of pod CIDRs sees) are read straight from the
// protobuf wire bytes of their Any fields: no message is unmarshalled, no
// native GoBGP NLRI or attribute built, nothing formatted and parsed again.
// Anything else takes the general route through GoBGP's apiutil.
func toRoute(p *api.Path) (validator.Route, error) {
	if p.Nlri == nil || p.Nlri.TypeUrl != urlPrefix {
		return toRouteNative(p)
	}
	pf, err := decodePrefix(p.Nlri.Value)
	if err != nil {
		return validator.Route{}, fmt.Errorf("decoding NLRI: %w", err)
	}
	rt := header(p, pf)
	if p.IsWithdraw {
		return rt, nil
	}
	if err := applyAttrs(&rt, p.Pattrs); err != nil {
		return rt, fmt.Errorf("decoding path attributes of %s: %w", pf, err)
	}
	return rt, nil
}

func header(p *api.Path, pf netip.Prefix) validator.Route {
	rt := validator.Route{Prefix: pf.Masked(), Stale: p.Stale, PathID: p.Identifier, PeerASN: p.SourceAsn}
	rt.Peer, _ = parseAddr(p.NeighborIp)
	rt.RouterID, _ = parseAddr(p.SourceId)
	return rt
}

// toRouteNative is the general translation, through GoBGP's native types.
func toRouteNative(p *api.Path) (validator.Route, error) {
	nlri, err := apiutil.GetNativeNlri(p)
	if err != nil {
		return validator.Route{}, fmt.Errorf("decoding NLRI: %w", err)
	}
	pf, err := netip.ParsePrefix(nlri.String())
	if err != nil {
		return validator.Route{}, fmt.Errorf("prefix %q: %w", nlri.String(), err)
	}
	rt := header(p, pf)
	if p.IsWithdraw {
		return rt, nil
	}
	attrs, err := apiutil.GetNativePathAttributes(p)
	if err != nil {
		return rt, fmt.Errorf("decoding path attributes of %s: %w", pf, err)
	}
	dump.ApplyAttributes(&rt, attrs)
	return rt, nil
}

// decodePrefix reads an apipb.IPAddressPrefix (1: prefix_len, 2: prefix).
func decodePrefix(b []byte) (netip.Prefix, error) {
	var bits uint64
	var addr []byte
	err := eachField(b, func(num protowire.Number, v uint64, s []byte) {
		switch num {
		case 1:
			bits = v
		case 2:
			addr = s
		}
	})
	if err != nil {
		return netip.Prefix{}, err
	}
	a, err := netip.ParseAddr(string(addr))
	if err != nil {
		return netip.Prefix{}, err
	}
	pf := netip.PrefixFrom(a.Unmap(), int(bits))
	if !pf.IsValid() {
		return pf, fmt.Errorf("prefix %s/%d", addr, bits)
	}
	return pf, nil
}

// applyAttrs is dump.ApplyAttributes on the wire bytes of the attributes the
// validator uses (next hop, MP_REACH next hop, AS path, communities).
func applyAttrs(rt *validator.Route, attrs []*anypb.Any) error {
	for _, a := range attrs {
		var err error
		switch a.TypeUrl {
		case urlNextHop: // 1: next_hop
			err = eachField(a.Value, func(num protowire.Number, _ uint64, s []byte) {
				if nh, e := netip.ParseAddr(string(s)); num == 1 && e == nil && !rt.NextHop.IsValid() {
					rt.NextHop = nh.Unmap()
				}
			})
		case urlMpReach: // 2: next_hops, the first is the global next hop
			first := true
			err = eachField(a.Value, func(num protowire.Number, _ uint64, s []byte) {
				if num == 2 && first {
					first = false
					if nh, e := netip.ParseAddr(string(s)); e == nil {
						rt.NextHop = nh.Unmap()
					}
				}
			})
		case urlASPath: // 1: segments {1: type, 2: packed numbers}
			var segErr error
			segs := 0
			err = eachField(a.Value, func(num protowire.Number, _ uint64, seg []byte) {
				if num != 1 || segErr != nil {
					return
				}
				segs++
				if e := eachField(seg, func(num protowire.Number, v uint64, packed []byte) {
					if num == 2 {
						eachVarint(v, packed, func(as uint64) { rt.ASPath = append(rt.ASPath, uint32(as)) })
					}
				}); e != nil {
					segErr = fmt.Errorf("decoding AS path segment %d: %w", segs, e)
				}
			})
			if err == nil {
				err = segErr
			}
		case urlCommunities: // 1: packed communities
			err = eachField(a.Value, func(num protowire.Number, v uint64, packed []byte) {
				if num == 1 {
					eachVarint(v, packed, func(c uint64) {
						rt.Communities = append(rt.Communities,
							strconv.FormatUint(c>>16, 10)+":"+strconv.FormatUint(c&0xffff, 10))
					})
				}
			})
		}
		if err != nil {
			return fmt.Errorf("%s: %w", a.TypeUrl, err)
		}
	}
	return nil
}

// eachField calls f for every field of a protobuf message: varints with v set,
// length-delimited fields (strings, messages, packed varints) with s set.
func eachField(b []byte, f func(num protowire.Number, v uint64, s []byte)) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		switch typ {
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			f(num, v, nil)
			b = b[n:]
		case protowire.BytesType:
			s, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
			f(num, 0, s)
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
		}
	}
	return nil
}

// eachVarint calls f with a repeated varint field's element: v when it came
// unpacked, every varint of packed when it came packed.
func eachVarint(v uint64, packed []byte, f func(uint64)) {
	if packed == nil {
		f(v)
		return
	}
	for len(packed) > 0 {
		x, n := protowire.ConsumeVarint(packed)
		if n < 0 {
			return
		}
		f(x)
		packed = packed[n:]
	}
}

func parseAddr(s string) (netip.Addr, error) {
	if s == "" || s == "<nil>" {
		return netip.Addr{}, nil
	}
	a, err := netip.ParseAddr(s)
	return a.Unmap(), err
}
