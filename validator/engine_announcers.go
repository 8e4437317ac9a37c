package validator

import "net/netip"

// Announces reports whether the engine's table holds a path of prefix p that
// belongs to the node named node: a current node, a CiliumNode without Node
// or a deleted node's tombstone (graceful-restart stale paths included: the
// switch still forwards by them). validator/convergence asks it of the few
// routes whose change it waits for.
func (e *Engine) Announces(p netip.Prefix, node string) bool {
	for _, i := range e.s.RoutesFor(p) {
		if originName(e.s.Origin(i)) == node {
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
