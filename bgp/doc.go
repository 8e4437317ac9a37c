// Package bgp is routewarden's BGP side: a passive GoBGP peer (route collector)
// that accepts sessions from Cilium nodes (or a ToR) and never advertises a
// route. The paths come through the route feed (feed.go): GoBGP's own BMP
// client forwards each UPDATE it took, bgp/wire decodes it, and the RIB
// (bgp/rib) keeps it, each path under the peer it came from, translated into
// the validator's Route model. It is the only package that imports GoBGP,
// with its subpackages: rib is the RIB, wire decodes UPDATEs and BMP, bmp is
// the BMP station, dump reads route dumps, speaker is a GoBGP speaker playing
// a Cilium node (the demo's and the tests'), gobgplog routes GoBGP's logs,
// and bgptest is the test kit (a raw BGP neighbor; tests and benchmarks only).
package bgp
