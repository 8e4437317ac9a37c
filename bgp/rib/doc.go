// Package rib is routewarden's RIB: every path the collector receives from
// its direct BGP peers (GoBGP sessions) and from the peers monitored over BMP,
// each kept under its origin (Peer), and the views of it the validator reads.
//
//   - One write API for every origin (peer.go): Up, Update, EndOfRIB, Down
//     (update.go, session.go; monitored.go has what only BMP tells), fed by
//     one Route-Monitoring applier (RouteMonitoring, update.go) that both
//     GoBGP's route feed (bgp) and the BMP station (bgp/bmp) call with an
//     UPDATE bgp/wire decoded.
//   - A compact path store: per peer, maps keyed by prefix bytes and
//     ADD-PATH ID whose values index shared, reference-counted attribute
//     sets (paths.go, attrs.go).
//   - Initial-sync staging: a direct peer's initial table is held apart until
//     its End-of-RIB and published at once (initial_sync.go, staging.go).
//   - The change log a reader catches up from (changes.go), and the views:
//     the routes the rules judge (routes.go), a monitored peer's pre-policy,
//     post-policy and Loc-RIB views (views.go) and what policy dropped
//     (policy_drops.go).
//
// It imports neither GoBGP nor the collector directly: it gets messages
// bgp/wire decoded (bgp/wire reads them with GoBGP's packet types).
package rib
