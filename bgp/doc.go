// Package bgp is routewarden's BGP side: a passive GoBGP peer (route collector)
// that accepts sessions from Cilium nodes (or a ToR), never advertises a route,
// and keeps every path it receives in a Store, translated into the validator's
// Route model. The paths come through the route feed (feed.go): GoBGP's own
// BMP client forwards each UPDATE it took, and bgp/wire decodes it. It is the
// only package that imports GoBGP (with its subpackages: wire decodes UPDATEs
// and BMP, bmp is the BMP station, dump reads route dumps, rawbgp is a raw
// speaker for tests and benchmarks).
package bgp
