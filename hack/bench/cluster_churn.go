package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Churn after the steady window, at fixed rates for ChurnOptions.Seconds:
//   - endpoint flips: a JSON patch toggling the readiness of one endpoint
//     whose node keeps another ready endpoint of the Service (k >=
//     announcersPerVIP), so the expected announcers, and the routes, stay right;
//   - node delete and re-add: Node and CiliumNode deleted while the ToR still
//     announces the node's routes (stale-route must fire: the delete -> alert
//     sample), then created again, same name and CIDRs, once it fired;
//   - Service create and delete: a LoadBalancer Service outside the BGP
//     advertisement (no `announce: bgp` label, so no route is expected), its
//     status and EndpointSlice, deleted again at the next tick.
// The cluster is as it was after the churn, for the next watcher.

// ChurnRates are the churn's rates, per second.
type ChurnRates struct {
	EndpointFlips float64 `json:"endpointFlips"`
	NodeCycles    float64 `json:"nodeCycles"`    // a delete and a re-add each
	ServiceCycles float64 `json:"serviceCycles"` // a create and a delete each
}

// ChurnResult is what the churn did and the delete -> alert samples.
type ChurnResult struct {
	Seconds        float64   `json:"seconds"`
	EndpointFlips  int       `json:"endpointFlips"`
	NodeDeletes    int       `json:"nodeDeletes"`
	NodeAdds       int       `json:"nodeAdds"`
	ServiceCreates int       `json:"serviceCreates"`
	ServiceDeletes int       `json:"serviceDeletes"`
	AlertMs        []float64 `json:"deleteToAlertMs"` // one per node delete, sorted
	Missed         int       `json:"missed"`          // deletes whose alert did not come within alertTimeout
	Validations    int       `json:"validations"`     // routewarden's validations during the churn
	ValidationSec  float64   `json:"validationSec"`   // and the seconds they took
	Err            string    `json:"error,omitempty"`
}

const alertTimeout = 30 * time.Second

// churn runs the churn against cp for d; firing reports whether the
// stale-route finding of a prefix fires (routewarden's API).
func churn(ctx context.Context, cp *controlPlane, o ClusterOptions, d time.Duration,
	firing func(prefix string) bool) ChurnResult {
	var res ChurnResult
	var mu sync.Mutex
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if res.Err == "" && err != nil {
			res.Err = err.Error()
		}
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var wg sync.WaitGroup
	every := func(rate float64, f func(n int) error) {
		if rate <= 0 {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTicker(time.Duration(float64(time.Second) / rate))
			defer t.Stop()
			for n := 0; ; n++ {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				if err := f(n); err != nil && ctx.Err() == nil {
					fail(err)
				}
			}
		}()
	}
	rng := rand.New(rand.NewPCG(19, 5000))
	every(o.Churn.EndpointFlips, func(n int) error {
		j, k := rng.IntN(o.Services), announcersPerVIP+rng.IntN(endpointsPerSlice-announcersPerVIP)
		ready := n%2 == 1 // odd flips undo even ones, roughly
		patch := fmt.Sprintf(`[{"op":"replace","path":"/endpoints/%d/conditions/ready","value":%t}]`, k, ready)
		_, err := cp.kc.DiscoveryV1().EndpointSlices(benchNamespace).Patch(context.Background(), serviceName(j)+"-abcde",
			types.JSONPatchType, []byte(patch), metav1.PatchOptions{})
		mu.Lock()
		res.EndpointFlips++
		mu.Unlock()
		return err
	})
	every(o.Churn.NodeCycles, func(n int) error {
		// Each cycle on its own: a slow alert does not slow the rate down.
		wg.Add(1)
		go func() {
			defer wg.Done()
			ms, deleted, err := cp.nodeCycle(o.Nodes-1-n%o.Nodes, firing)
			mu.Lock()
			if deleted {
				res.NodeDeletes++
			}
			switch {
			case ms >= 0:
				res.AlertMs = append(res.AlertMs, ms)
			case deleted:
				res.Missed++
			}
			if err == nil {
				res.NodeAdds++
			}
			mu.Unlock()
			fail(err)
		}()
		return nil
	})
	every(o.Churn.ServiceCycles, func(n int) error {
		j := o.Services + n%1000
		if n > 0 {
			if err := cp.deleteService(o.Services + (n-1)%1000); err != nil {
				return err
			}
			mu.Lock()
			res.ServiceDeletes++
			mu.Unlock()
		}
		err := cp.createService(context.Background(), j, o.Nodes, false)
		if err == nil {
			mu.Lock()
			res.ServiceCreates++
			mu.Unlock()
		}
		return err
	})
	wg.Wait()
	if res.ServiceCreates > res.ServiceDeletes { // the last one
		last := o.Services + (res.ServiceCreates-1)%1000
		if err := cp.deleteService(last); err != nil {
			fail(err)
		} else {
			res.ServiceDeletes++
		}
	}
	res.Seconds = time.Since(start).Seconds()
	slices.Sort(res.AlertMs)
	return res
}

// nodeCycle deletes node i's Node and CiliumNode, waits for the stale-route
// finding of its IPv4 pod CIDR to fire (ms from the delete call, -1 if it
// did not), and creates both again. The node's objects are re-created even
// when the churn's time is up.
func (cp *controlPlane) nodeCycle(i int, firing func(prefix string) bool) (ms float64, deleted bool, err error) {
	ctx := context.Background()
	name := nodeName(i)
	t0 := time.Now()
	if err := cp.kc.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return -1, false, fmt.Errorf("deleting Node %s: %w", name, err)
	}
	if err := cp.dyn.Resource(gvrCiliumNodesBench).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return -1, true, fmt.Errorf("deleting CiliumNode %s: %w", name, err)
	}
	ms = -1
	for deadline := t0.Add(alertTimeout); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if firing(podCIDRV4(i)) {
			ms = float64(time.Since(t0).Microseconds()) / 1000
			break
		}
	}
	return ms, true, cp.createNode(ctx, i)
}

// createNode creates node i's Node (with its status) and CiliumNode.
func (cp *controlPlane) createNode(ctx context.Context, i int) error {
	n := benchNode(i)
	created, err := cp.kc.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) { // a retry (retried) of a create that timed out
		created, err = cp.kc.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{})
	}
	if err != nil {
		return fmt.Errorf("creating Node %s: %w", n.Name, err)
	}
	created.Status = n.Status
	if _, err := cp.kc.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("writing Node %s's status: %w", n.Name, err)
	}
	_, err = cp.dyn.Resource(gvrCiliumNodesBench).Create(ctx, benchCiliumNode(i), metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating CiliumNode %s: %w", n.Name, err)
	}
	return nil
}

// createService creates Service j with its status and EndpointSlice;
// announced says whether the BGP advertisement selects it.
func (cp *controlPlane) createService(ctx context.Context, j, nodes int, announced bool) error {
	s := benchService(j)
	if !announced {
		delete(s.Labels, "announce")
	}
	created, err := cp.kc.CoreV1().Services(benchNamespace).Create(ctx, s, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		created, err = cp.kc.CoreV1().Services(benchNamespace).Get(ctx, s.Name, metav1.GetOptions{})
	}
	if err != nil {
		return fmt.Errorf("creating Service %s: %w", s.Name, err)
	}
	created.Status = s.Status
	if _, err := cp.kc.CoreV1().Services(benchNamespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("writing Service %s's status: %w", s.Name, err)
	}
	_, err = cp.kc.DiscoveryV1().EndpointSlices(benchNamespace).Create(ctx, benchSlice(j, nodes), metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating Service %s's EndpointSlice: %w", s.Name, err)
	}
	return nil
}

// deleteService deletes Service j and its EndpointSlice.
func (cp *controlPlane) deleteService(j int) error {
	ctx := context.Background()
	if err := cp.kc.CoreV1().Services(benchNamespace).Delete(ctx, serviceName(j), metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("deleting Service %s: %w", serviceName(j), err)
	}
	err := cp.kc.DiscoveryV1().EndpointSlices(benchNamespace).Delete(ctx, serviceName(j)+"-abcde", metav1.DeleteOptions{})
	if err != nil {
		return fmt.Errorf("deleting Service %s's EndpointSlice: %w", serviceName(j), err)
	}
	return nil
}

// percentile is the p-th percentile (0..100) of sorted xs, nearest rank.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	k := int(p/100*float64(len(xs))+0.999999) - 1
	return xs[min(max(k, 0), len(xs)-1)]
}
