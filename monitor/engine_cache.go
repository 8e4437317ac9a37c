package monitor

import (
	"reflect"
	"slices"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// judged is what a validation judges the routes against and beside: the
// cluster's truth and what the ToRs showed of their policy, each with its
// source's version.
type judged struct {
	cluster       *validator.Cluster
	version       uint64 // the cluster source's
	policy        validator.PolicyView
	policyVersion uint64 // the policy source's (PolicySource)
}

// engineCache keeps an incremental validator.Engine from one validation to
// the next. While the cluster (its version and its tombstones, which expire
// without a new version), the policy view (its version) and the validator
// options stay the same, a validation feeds the engine only the routes that
// changed; otherwise it builds a new engine, which costs what a full
// validation costs.
type engineCache struct {
	engine        *validator.Engine
	version       uint64
	policyVersion uint64
	deleted       []validator.DeletedNode
	opts          validator.Options // without Now
	// routesVersion is the route source's version the engine holds, when
	// the source has versions (FreshRouteSource).
	routesVersion uint64
	routesKnown   bool
}

// unchanged returns the last result when neither the routes (by version), the
// cluster, the policy view nor the options changed since, and no tombstone
// can age.
func (c *engineCache) unchanged(in judged, routesVersion uint64, opts validator.Options) (validator.Result, bool) {
	if !c.holds(in, opts) || !c.routesKnown || routesVersion != c.routesVersion || len(in.cluster.Deleted) > 0 {
		return validator.Result{}, false
	}
	return c.engine.Result(), true
}

// holds reports whether the engine was built for this cluster (its version
// and its tombstones), this policy view (its version) and these options (Now
// aside).
func (c *engineCache) holds(in judged, opts validator.Options) bool {
	opts.Now = time.Time{}
	return c.engine != nil && in.version == c.version && in.policyVersion == c.policyVersion &&
		sameTombstones(in.cluster.Deleted, c.deleted) && reflect.DeepEqual(opts, c.opts)
}

// validate returns what validator.Validate(in.cluster, routes, in.policy,
// opts) returns. With owned set the engine may keep routes instead of copying
// them (the caller hands them over).
func (c *engineCache) validate(in judged, routes []validator.Route, opts validator.Options,
	owned bool) validator.Result {
	c.routesKnown = false
	if !c.holds(in, opts) {
		// The old engine (a copy of the table and its indexes) goes first.
		c.engine = nil
		if owned {
			c.engine = validator.NewEngineOwned(in.cluster, routes, in.policy, opts)
		} else {
			c.engine = validator.NewEngine(in.cluster, routes, in.policy, opts)
		}
		c.version, c.policyVersion, c.deleted, c.opts = in.version, in.policyVersion,
			slices.Clone(in.cluster.Deleted), opts
		c.opts.Now = time.Time{}
		return c.engine.Result()
	}
	c.engine.SetNow(opts.Now)
	if owned {
		c.engine.SyncOwned(routes)
	} else {
		c.engine.Sync(routes)
	}
	return c.engine.Result()
}

// catchUp brings the engine up to date from the route source's changes when
// the cluster, the policy view and the options are the engine's and the change is small: what
// a validation after a few route events costs then is those events, where
// copying the table out of the store would cost ~0.3 s and 170 MB at a million
// routes. ok is false when the caller must validate the whole table.
func (c *engineCache) catchUp(in judged, opts validator.Options, src ChangeSource) (validator.Result, bool) {
	if !c.holds(in, opts) || !c.routesKnown {
		return validator.Result{}, false
	}
	changed, gone, rv, ok := src.Changes(c.routesVersion)
	if !ok || len(changed)+len(gone) > maxCatchUp {
		return validator.Result{}, false
	}
	c.engine.SetNow(opts.Now)
	for _, r := range gone {
		c.engine.WithdrawRoute(r)
	}
	for _, r := range changed {
		c.engine.AddRoute(r)
	}
	c.routesVersion = rv
	return c.engine.Result(), true
}

// maxCatchUp is the largest change catchUp applies route by route; a larger
// one goes through Sync, which may rebuild the engine instead.
const maxCatchUp = 4096

func sameTombstones(a, b []validator.DeletedNode) bool {
	return slices.EqualFunc(a, b, func(x, y validator.DeletedNode) bool {
		return x.Name == y.Name && x.DeletedAt.Equal(y.DeletedAt) && slices.Equal(x.Addresses, y.Addresses) &&
			slices.Equal(x.CIDRs, y.CIDRs)
	})
}
