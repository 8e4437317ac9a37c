package kube

import (
	"errors"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/routewarden/routewarden/cilium"
	"github.com/routewarden/routewarden/validator"
)

// resources returns what to watch. CiliumNodes are required: without them
// there is nothing to check. Pool CRDs are optional (older Cilium, no
// multi-pool, no LB IPAM): without them the inventory runs degraded. Of each
// pool CRD the newest version the API server serves is watched.
func (i *Inventory) resources() ([]schema.GroupVersionResource, error) {
	vip, err := i.vipResources()
	if err != nil {
		return nil, err
	}
	gvrs := append([]schema.GroupVersionResource{gvrNodes, gvrConfigMaps}, vip...)
	if _, err := i.served(gvrCiliumNodes); err != nil {
		if !errors.Is(err, errNotServed) && !apierrors.IsNotFound(err) {
			return nil, apiFailure("asking the API server for "+gvrCiliumNodes.GroupVersion().String(), err)
		}
		return nil, fmt.Errorf("the API server has no %s in %s: is Cilium installed in this cluster? (%v)",
			gvrCiliumNodes.Resource, gvrCiliumNodes.GroupVersion(), err)
	}
	gvrs = append(gvrs, gvrCiliumNodes)
	var pools []schema.GroupVersionResource
	for _, versions := range [][]schema.GroupVersionResource{podIPPoolVersions, lbIPPoolVersions} {
		gvr, ok, err := i.newestServed(versions)
		if err != nil {
			return nil, err
		}
		if !ok {
			i.log.Warn().Str("resource", versions[0].Resource+"."+versions[0].Group).
				Msg("CRD not installed: running without it (degraded)")
			i.mu.Lock()
			i.status.Degraded = append(i.status.Degraded, versions[0].Resource)
			i.mu.Unlock()
			continue
		}
		pools = append(pools, gvr)
	}
	i.mu.Lock()
	i.poolGVRs = pools
	i.mu.Unlock()
	return append(gvrs, pools...), nil
}

// errNotServed: discovery answered, and the group version lists no such resource.
var errNotServed = errors.New("not served")

// newestServed returns the first of versions (one resource, newest version
// first) that the API server serves. A discovery failure (a timeout, 503,
// 429, 401/403) is an error, never "not served": a CRD taken for absent would
// be left unwatched for the life of the process.
func (i *Inventory) newestServed(versions []schema.GroupVersionResource) (schema.GroupVersionResource, bool, error) {
	for _, gvr := range versions {
		ok, err := i.served(gvr)
		if ok {
			return gvr, true, nil
		}
		if !errors.Is(err, errNotServed) && !apierrors.IsNotFound(err) {
			return schema.GroupVersionResource{}, false,
				apiFailure("asking the API server for "+gvr.GroupVersion().String(), err)
		}
	}
	return schema.GroupVersionResource{}, false, nil
}

// served reports whether the API server serves the resource; the error says
// why not when discovery failed.
func (i *Inventory) served(gvr schema.GroupVersionResource) (bool, error) {
	list, err := i.disc.ServerResourcesForGroupVersion(gvr.GroupVersion().String())
	if err != nil {
		return false, err
	}
	if !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == gvr.Resource }) {
		return false, fmt.Errorf("%w: %s lists no %s", errNotServed, gvr.GroupVersion(), gvr.Resource)
	}
	return true, nil
}

// upsert records an object a set's informer delivered. Only the live set's
// changes are changes of the inventory; a pending set fills its own objects
// until it is promoted; a stopped set's late events are dropped.
func (i *Inventory) upsert(s *informerSet, gvr schema.GroupVersionResource, obj any) {
	d := decodedOf(gvr, obj)
	if d == nil {
		return
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if s != i.live && s != i.pending {
		return
	}
	s.feedHandledLocked(gvr, d)
	if s.objects[gvr] == nil {
		s.objects[gvr] = map[string]*decodedObject{}
	}
	s.objects[gvr][d.key()] = d
	if s != i.live {
		return
	}
	if gvr == gvrNodes {
		// A node that comes back is no longer deleted.
		i.tombstones = slices.DeleteFunc(i.tombstones, func(t validator.DeletedNode) bool { return t.Name == d.name })
	}
	i.bumpLocked()
}

func (i *Inventory) remove(s *informerSet, gvr schema.GroupVersionResource, obj any) {
	d := decodedOf(gvr, obj)
	if d == nil {
		return
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if s != i.live && s != i.pending {
		return
	}
	s.feedHandledLocked(gvr, d)
	if s != i.live {
		delete(s.objects[gvr], d.key())
		return
	}
	if gvr == gvrNodes {
		i.tombstones = append(i.tombstones, i.tombstoneLocked(d))
	}
	delete(s.objects[gvr], d.key())
	i.bumpLocked()
}

// tombstoneLocked remembers a deleted node's addresses and CIDRs, so that a
// finding can say which node a stale route belonged to.
func (i *Inventory) tombstoneLocked(node *decodedObject) validator.DeletedNode {
	d := validator.DeletedNode{Name: node.name, DeletedAt: time.Now()}
	if node.err == nil && len(node.objs.Nodes) == 1 {
		if vn, err := cilium.ToNode(&node.objs.Nodes[0].Object); err == nil {
			d.Addresses, d.CIDRs = vn.Addresses, vn.PodCIDRs
		}
	}
	if cn, ok := i.objects[gvrCiliumNodes][node.name]; ok && cn.err == nil && len(cn.objs.CiliumNodes) == 1 {
		vc := cilium.ToCiliumNode(&cn.objs.CiliumNodes[0].Object)
		d.Addresses = append(d.Addresses, vc.Addresses...)
		d.CIDRs = append(d.CIDRs, vc.PodCIDRs...)
		for _, p := range vc.Pools {
			d.CIDRs = append(d.CIDRs, p.CIDRs...)
		}
	}
	return d
}

func (i *Inventory) pruneTombstonesLocked(now time.Time) {
	i.tombstones = slices.DeleteFunc(i.tombstones, func(d validator.DeletedNode) bool {
		return now.Sub(d.DeletedAt) > i.opts.TombstoneTTL
	})
}
