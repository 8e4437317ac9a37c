// Package bgptest is the BGP test kit: a raw BGP neighbor (Conn) that opens
// a session over plain TCP, keeps it alive and sends whatever bytes it is
// given, well-formed UPDATEs packed to the 4096-byte limit (PackUpdates) or
// deliberately broken ones; it never validates what it sends, that is the
// point. Only tests and the bench harness (hack/bench) import it, never the
// product.
//
// It lives under bgp/ because it uses GoBGP's packet package for the OPEN and
// for decoding what it receives (only bgp/ imports GoBGP).
package bgptest
