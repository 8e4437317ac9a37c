package interop

import (
	"fmt"
	"strings"
)

// The Services of the scenarios, after Cilium's svc-adverts and svc-traffic-policy cases: a
// LoadBalancer Service in namespace test whose address (status, as LB-IPAM would write it) is
// in the pool 172.16.1.0/24, its EndpointSlice, and the advertisement that selects it.

// lbPool is the CiliumLoadBalancerIPPool the VIPs come from.
const lbPool = `apiVersion: v1
kind: Namespace
metadata: {name: test}
---
apiVersion: cilium.io/v2
kind: CiliumLoadBalancerIPPool
metadata: {name: lb}
spec:
  blocks: [{cidr: 172.16.1.0/24}]
`

// lbService is Service name with VIP vip, labelled bgp=advertise, and the traffic policy given
// (Cluster or Local).
func lbService(name, vip, policy string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: %[1]s
  namespace: test
  labels: {bgp: advertise}
spec:
  type: LoadBalancer
  externalTrafficPolicy: %[3]s
  ipFamilies: [IPv4]
  ipFamilyPolicy: SingleStack
  ports: [{name: http, port: 80, protocol: TCP, targetPort: 80}]
  selector: {name: %[1]s}
status:
  loadBalancer:
    ingress: [{ip: %[2]s}]
`, name, vip, policy)
}

// endpoints is the EndpointSlice of Service name with one ready endpoint on each of the nodes.
func endpoints(name string, nodes ...int) string {
	var eps []string
	for _, n := range nodes {
		eps = append(eps, fmt.Sprintf(`- addresses: [10.244.%[1]d.20]
  conditions: {ready: true, serving: true, terminating: false}
  nodeName: node%[1]d`, n))
	}
	list := "endpoints: []"
	if len(eps) > 0 {
		list = "endpoints:\n" + strings.Join(eps, "\n")
	}
	return fmt.Sprintf(`apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: %[1]s-eps1
  namespace: test
  labels: {kubernetes.io/service-name: %[1]s}
addressType: IPv4
%[2]s
ports: [{name: http, port: 80, protocol: TCP}]
`, name, list)
}

// serviceAdvert advertises the LoadBalancer IPs of the Services labelled bgp=advertise, with
// the attributes given (YAML, "" for none).
func serviceAdvert(name, attributes string) string {
	return advert(name, `advertisementType: Service
service: {addresses: [LoadBalancerIP]}
selector: {matchLabels: {bgp: advertise}}`, attributes)
}
