package interop

import (
	"fmt"
	"strings"
)

// Multi-pool IPAM, after Cilium's pod-ip-pool case: the CiliumPodIPPool "default" gives node i
// 10.244.i.0/24 and fd00:10:244:i::/64 (CiliumNode spec.ipam.pools.allocated), and the
// advertisement selects the pool by its label.

// podIPPool is the pool with the IPv4 range given (the IPv6 range stays fd00:10:244::/56).
func podIPPool(v4 string) string {
	return fmt.Sprintf(`apiVersion: cilium.io/v2alpha1
kind: CiliumPodIPPool
metadata:
  name: default
  labels: {pool: default}
spec:
  ipv4: {cidrs: [%s], maskSize: 24}
  ipv6: {cidrs: ["fd00:10:244::/56"], maskSize: 64}
`, v4)
}

// multiPoolNodes are nodes 1..n with their CIDRs allocated from the pool instead of podCIDRs.
func multiPoolNodes(n int) string {
	var docs []string
	for i := 1; i <= n; i++ {
		cidrs := fmt.Sprintf(`[10.244.%[1]d.0/24, "fd00:10:244:%[1]d::/64"]`, i)
		docs = append(docs, strings.Replace(node(i), "    podCIDRs: "+cidrs,
			"    pools:\n      allocated: [{pool: default, cidrs: "+cidrs+"}]", 1))
	}
	return join(docs...)
}

// poolAdvert advertises the CIDRs the nodes have from the pools labelled pool=default.
var poolAdvert = advert("pools", `advertisementType: CiliumPodIPPool
selector: {matchLabels: {pool: default}}`, "")
