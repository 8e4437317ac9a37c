// Package bmp is routewarden's BMP station (RFC 7854, with RFC 9069 Loc-RIB
// monitoring): routers (FRR's bmp module on a ToR) and Cilium nodes
// (bmpServers, GoBGP's BMP client) connect to it and stream what they receive;
// the routes land in the RIB (rib.Store) beside those of directly peered nodes, each
// attributed to the monitored peer.
//
// Per monitored peer one view is kept: post-policy Adj-RIB-In when the router
// sends it (what the router accepted), else pre-policy; once a post-policy
// message arrives for a peer, its pre-policy routes are dropped and later
// pre-policy messages ignored. Adj-RIB-Out messages are ignored. Loc-RIB
// messages (peer type 3) are the sender's own announcements: only locally
// originated paths (empty AS path) are kept, attributed to the sender's address
// (a Cilium node's address, named by the Initiation sysName), not to an
// unspecified next hop; learned paths there are second-hand and skipped.
//
// Senders' quirks handled: FRR (before FRRouting/frr#21815) prepends its own
// ASN to the Adj-RIB-In AS paths it reports, which is stripped; FRR 8.4 leaves
// the negotiated ADD-PATH IDs out of Route Monitoring and GoBGP leaves them out
// of its initial dump, so an UPDATE is decoded both ways when ADD-PATH was
// negotiated (addpath.go). A BMP session's end drops its monitored peers' routes.
//
// GoBGP's packet/bmp decodes every message but Route Monitoring's UPDATE, which
// update.go decodes itself for IPv4 and IPv6 unicast (see BenchmarkDecodeUpdate).
package bmp
