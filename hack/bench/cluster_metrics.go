package main

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Requests counts the API server's requests by "VERB resource", from its own
// apiserver_request_total, for the resources routewarden watches. That counts
// a request when it ends, so a watch still open is not in it: "WATCH(open)
// resource" is the number open, from apiserver_longrunning_requests.
type Requests map[string]float64

var (
	requestLine  = regexp.MustCompile(`^(apiserver_request_total|apiserver_longrunning_requests)\{([^}]*)\} ([0-9.e+]+)$`)
	labelPair    = regexp.MustCompile(`(\w+)="([^"]*)"`)
	watchedKinds = []string{"nodes", "ciliumnodes", "services", "endpointslices", "configmaps",
		"ciliumloadbalancerippools", "ciliumpodippools", "ciliumbgpclusterconfigs", "ciliumbgppeerconfigs",
		"ciliumbgpadvertisements", "ciliumbgppeeringpolicies", "ciliumbgpnodeconfigoverrides"}
)

// requests reads the API server's request counters (they restart from zero
// when the API server restarts).
func (cp *controlPlane) requests(ctx context.Context) (Requests, error) {
	body, err := cp.kc.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	out := Requests{}
	for _, line := range strings.Split(string(body), "\n") {
		m := requestLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		labels := map[string]string{}
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			labels[p[1]] = p[2]
		}
		if labels["subresource"] != "" || !slices.Contains(watchedKinds, labels["resource"]) {
			continue
		}
		v, _ := strconv.ParseFloat(m[3], 64)
		verb := labels["verb"]
		if m[1] == "apiserver_longrunning_requests" {
			if verb != "WATCH" {
				continue
			}
			verb = "WATCH(open)"
		}
		out[verb+" "+labels["resource"]] += v
	}
	return out, nil
}

// minus is r - before, without the entries that did not change.
func (r Requests) minus(before Requests) Requests {
	out := Requests{}
	for k, v := range r {
		if d := v - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

// verbs sums the counts by verb: "LIST 12, WATCH 12".
func (r Requests) verbs() string {
	by := map[string]float64{}
	for k, v := range r {
		verb, _, _ := strings.Cut(k, " ")
		by[verb] += v
	}
	var parts []string
	for _, verb := range slices.Sorted(maps.Keys(by)) {
		parts = append(parts, verb+" "+strconv.FormatFloat(by[verb], 'f', 0, 64))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// maxPerResource is the largest count of verb for any one resource.
func (r Requests) maxPerResource(verb string) float64 {
	m := 0.0
	for k, v := range r {
		if strings.HasPrefix(k, verb+" ") {
			m = max(m, v)
		}
	}
	return m
}

// cachedKinds are the watched resources with more objects than one page of a
// list from etcd (500): until the API server's watch cache of one has
// initialised (after a restart, the outage), a list of it is served from
// etcd page by page, each page a LIST in apiserver_request_total.
var cachedKinds = []string{"nodes", "ciliumnodes", "services", "endpointslices"}

var cacheInitLine = regexp.MustCompile(`^apiserver_watch_cache_initializations_total\{([^}]*)\} ([0-9.e+]+)$`)

// waitWatchCaches waits until the watch caches of cachedKinds have
// initialised, so that a watcher started next lists from the cache (one LIST
// per resource), as it would from a long-running API server.
func (cp *controlPlane) waitWatchCaches(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	// A custom resource's storage, and its watch cache, is made on the
	// resource's first request after a restart (kube-apiserver.log says
	// "cacher initialized" for CiliumNodes only then): ask for one object.
	if _, err := cp.dyn.Resource(gvrCiliumNodesBench).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
		return 0, fmt.Errorf("listing a CiliumNode: %w", err)
	}
	err := waitFor(2*time.Minute, 100*time.Millisecond, "the API server's watch caches", func() (bool, error) {
		body, err := cp.kc.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		if err != nil {
			return false, ctx.Err()
		}
		ready := map[string]bool{}
		for _, line := range strings.Split(string(body), "\n") {
			if m := cacheInitLine.FindStringSubmatch(line); m != nil && m[2] != "0" {
				for _, p := range labelPair.FindAllStringSubmatch(m[1], -1) {
					if p[1] == "resource" {
						ready[p[2]] = true
					}
				}
			}
		}
		return !slices.ContainsFunc(cachedKinds, func(k string) bool { return !ready[k] }), ctx.Err()
	})
	return time.Since(start), err
}
