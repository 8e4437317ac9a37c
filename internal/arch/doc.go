// Package arch holds no code: its test (house_test.go) checks the rules of
// the house that ARCHITECTURE.md states against the module's real import
// graph, as `go list -deps -json ./...` reports it, and fails naming the
// import chain that breaks one:
//
//   - an import may point only to the same or a lower layer of the house
//     (the layer table in house_test.go), and internal/ imports nothing of
//     routewarden outside internal/;
//   - validator/ is pure: it reaches no GoBGP, client-go, logger, net/http,
//     Prometheus or runtime/debug, and none of its files reads the clock or
//     starts a timer;
//   - only bgp/ imports GoBGP and only kube/ imports client-go;
//   - the product imports no test kit.
//
// hack/ is outside the product. Tests may import across layers (an
// integration test runs several rooms together); the other rules hold for
// them too.
package arch
