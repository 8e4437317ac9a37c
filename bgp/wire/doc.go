// Package wire decodes what routewarden reads off the wire itself: BGP
// UPDATEs (their unicast prefixes, next hop, AS path and communities) and the
// framing of BMP messages. Decoding into buffers reused from message to message
// is several times faster than GoBGP's generic decoding, which allocates an
// object per prefix and per attribute (see the benchmarks in bgp/bmp). Both
// the BMP station (bgp/bmp) and the collector's in-process route feed (bgp)
// use it; GoBGP's packet library decodes everything else.
package wire
