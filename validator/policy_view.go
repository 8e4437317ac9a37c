package validator

// PolicyView is what the ToRs showed of their import policy beside the routes
// routewarden judges: the paths a ToR received from the nodes and which of
// them its policy dropped, from BMP's pre- and post-policy views (routewarden
// run: the BGP store, through monitor.PolicySource) or from a ToR's table
// given beside the node-side dumps (check --tor-routes). It is what the
// network showed, never the cluster's truth: it travels beside Cluster, with
// a version of its own in the validation loop, so that a change of either
// rebuilds what it must.
//
// The zero PolicyView is a network that showed nothing beyond its routes:
// every rule then judges the routes alone.
type PolicyView struct {
	// Drops are paths a ToR received and its policy dropped (BMP pre-
	// against post-policy; check: --tor-routes). The rule filtered-at-tor
	// reads them, and missing-route's hint, while every other rule keeps
	// judging the routes (of a BMP-monitored peer its post-policy view where
	// the ToR sends one, else its pre-policy view).
	Drops []PolicyDrop
	// PrePolicy are the paths of BMP-monitored peers as the ToR received
	// them (pre-policy Adj-RIB-In) where it sends their post-policy view too,
	// which the other rules judge: what the nodes sent. The rule
	// attribute-mismatch judges them in place of their post-policy paths
	// (attribute_mismatch.go).
	PrePolicy []Route
}
