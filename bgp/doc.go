// Package bgp is routewarden's BGP side: a passive GoBGP peer (route collector)
// that accepts sessions from Cilium nodes (or a ToR), never advertises a route,
// and keeps every path it receives in a Store, translated into the validator's
// Route model. It is the only package that imports GoBGP (with bgp/dump, which
// reads route dumps).
package bgp
