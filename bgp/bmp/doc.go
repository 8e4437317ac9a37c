// Package bmp is routewarden's BMP station (RFC 7854, with RFC 9069 Loc-RIB
// monitoring): routers (FRR's bmp module on a ToR) and Cilium nodes
// (bmpServers, GoBGP's BMP client) connect to it and stream what they receive;
// the routes land in the RIB (rib.Store) beside those of directly peered nodes, each
// attributed to the monitored peer.
//
// A monitored peer's views are held apart in the RIB (bgp/rib, views.go):
// pre-policy and post-policy Adj-RIB-In, and the sender's Loc-RIB as a peer of
// its own. The rules judge post-policy where the router sends it (what the
// router accepted), else pre-policy; comparing the two tells what the router's
// policy dropped (filtered-at-tor). Adj-RIB-Out messages are ignored. In the
// Loc-RIB (peer type 3) only locally originated paths (empty AS path) are
// kept, attributed to the sender's address (a Cilium node's address, named by
// the Initiation sysName), not to an unspecified next hop; learned paths there
// are second-hand and skipped (rib.RouteMonitoring, shared with the route feed).
//
// Senders' quirks handled: FRR (before FRRouting/frr#21815) prepends its own
// ASN to the Adj-RIB-In AS paths it reports, which is stripped; FRR 8.4 leaves
// the negotiated ADD-PATH IDs out of Route Monitoring and GoBGP leaves them out
// of its initial dump, so an UPDATE is decoded both ways when ADD-PATH was
// negotiated (addpath.go). A BMP session's end drops its monitored peers' routes.
//
// GoBGP's packet/bmp decodes every message but Route Monitoring's UPDATE, which
// bgp/wire decodes for IPv4 and IPv6 unicast (see BenchmarkDecodeUpdate).
package bmp
