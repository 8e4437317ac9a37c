package httpapi

// Paths lists every path the HTTP server answers, with what it is, for
// run --help (TestPathsListEveryRoute keeps it whole).
func Paths() []PathDoc {
	return []PathDoc{
		{"/", "the status page: findings, nodes, peers, changes, convergence"},
		{"/metrics", "Prometheus metrics"},
		{"/healthz", "alive"},
		{"/readyz", "ready: the cluster inventory is available (503 with the reason otherwise)"},
		{"/api/v1/findings", "findings, worst first, with the validation's state (warm-up, frozen)"},
		{"/api/v1/transitions", "the findings that last fired or resolved"},
		{"/api/v1/routes", "received routes (?view=pre-policy, post-policy, loc-rib for BMP peers)"},
		{"/api/v1/peers", "BGP and BMP peers: state, End-of-RIB, routes"},
		{"/api/v1/nodes", "each node's allocations next to what it announces"},
		{"/api/v1/convergence", "route changes awaited and completed, with their budgets"},
		{"/api/v1/roas", "the ROA set the RTR server serves (404 while rtr.enabled is off)"},
		{"/api/v1/openapi.json", "the API's OpenAPI 3 description"},
	}
}

// PathDoc is one path the server answers and what it is.
type PathDoc struct{ Path, What string }
