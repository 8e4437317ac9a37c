package cilium

import (
	"fmt"
	"slices"
	"strings"
)

// readKinds are the kinds routewarden reads, with the apiVersions their
// objects come in (Kubernetes 1.25 on, Cilium 1.14 to 1.20).
var readKinds = map[string][]string{
	"Node":                        {"v1"},
	"ConfigMap":                   {"v1"},
	"Service":                     {"v1"},
	"EndpointSlice":               {"discovery.k8s.io/v1"},
	"CiliumNode":                  {"cilium.io/v2"},
	"CiliumPodIPPool":             {"cilium.io/v2alpha1", "cilium.io/v2"},
	"CiliumLoadBalancerIPPool":    {"cilium.io/v2alpha1", "cilium.io/v2"},
	"CiliumBGPClusterConfig":      {"cilium.io/v2alpha1", "cilium.io/v2"},
	"CiliumBGPPeerConfig":         {"cilium.io/v2alpha1", "cilium.io/v2"},
	"CiliumBGPAdvertisement":      {"cilium.io/v2alpha1", "cilium.io/v2"},
	"CiliumBGPNodeConfigOverride": {"cilium.io/v2alpha1", "cilium.io/v2"},
	"CiliumBGPPeeringPolicy":      {"cilium.io/v2alpha1"},
}

// checkKind refuses an object routewarden would misread or silently skip: a
// kind it reads in an apiVersion it does not know, or a kind that is one of
// its own misspelt (it would be ignored, and its checks with it).
func checkKind(pos Pos, tm TypeMeta, name string) error {
	if versions, ok := readKinds[tm.Kind]; ok {
		if tm.APIVersion == "" || slices.Contains(versions, tm.APIVersion) {
			return nil
		}
		return fmt.Errorf("%s: %s %s has apiVersion %s, which routewarden does not read (expected %s)", pos,
			tm.Kind, name, tm.APIVersion, strings.Join(versions, " or "))
	}
	if near := nearestKind(tm.Kind); near != "" {
		return fmt.Errorf("%s: kind %s (%s) is not a kind routewarden reads: did you mean %s?", pos, tm.Kind, name, near)
	}
	return nil
}

// nearestKind is the kind routewarden reads that kind is a typo of: the same
// letters in another case, or an edit every six letters away, two at most
// (Pod is not a misspelt Node); "" when none.
func nearestKind(kind string) string {
	best, bestD := "", 3
	for k := range readKinds {
		d := editDistance(strings.ToLower(kind), strings.ToLower(k))
		if d <= min(len(k)/6, 2) && (d < bestD || d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// read counts the objects of kinds routewarden reads.
func (o *Objects) read() int {
	return len(o.Nodes) + len(o.CiliumNodes) + len(o.PodIPPools) + len(o.LBIPPools) + len(o.ConfigMaps) +
		len(o.BGPClusterCfgs) + len(o.BGPPeerCfgs) + len(o.BGPAdverts) + len(o.BGPPeeringPols) +
		len(o.BGPNodeOverrides) + len(o.Services) + len(o.EndpointSlices)
}

// nothingRead refuses cluster files that held objects, none of a kind
// routewarden reads (a Pod list, say): judged, they would make every route
// a stale one.
func (o *Objects) nothingRead(paths []string) error {
	if o.read() > 0 || len(o.Ignored) == 0 {
		return nil
	}
	return fmt.Errorf("%s: no object routewarden reads, only %s: give Nodes and CiliumNodes (and Cilium's pools, "+
		"cilium-config, Services, BGP objects), e.g. %s", strings.Join(paths, ", "), o.IgnoredSummary(), clusterCommand)
}
