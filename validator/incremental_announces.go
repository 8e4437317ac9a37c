package validator

import "net/netip"

// Announces reports whether the engine's table holds a path of prefix p that
// belongs to the node named node: a current node, a CiliumNode without Node
// or a deleted node's tombstone (graceful-restart stale paths included: the
// switch still forwards by them). validator/convergence asks it of the few
// routes whose change it waits for. An empty node asks for any node's path.
func (e *Engine) Announces(p netip.Prefix, node string) bool {
	for _, i := range e.s.RoutesFor(p) {
		if name := originName(e.s.Origin(i)); name != "" && (node == "" || name == node) {
			return true
		}
	}
	return false
}

// originName names the node a route belongs to, current or not.
func originName(o Origin) string {
	switch {
	case o.Node != nil:
		return o.Node.Name
	case o.Orphan != nil:
		return o.Orphan.Name
	case o.Deleted != nil:
		return o.Deleted.Name
	}
	return ""
}

// RoutesOf calls fn for each route in the engine's table that belongs to one
// of the named nodes (current, orphaned or deleted), with the node's name.
func (e *Engine) RoutesOf(names map[string]bool, fn func(r *Route, node string)) {
	for i := range e.s.Routes {
		if n := originName(e.s.Origin(i)); n != "" && names[n] {
			fn(&e.s.Routes[i], n)
		}
	}
}
