package cilium

import (
	"strings"
	"testing"
)

const servicesDoc = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: shop, labels: {app: web}}
  spec: {type: LoadBalancer, externalTrafficPolicy: Local}
  status: {loadBalancer: {ingress: [{ip: 172.16.100.10, ipMode: VIP}, {ip: "fd00:172:16::10"}]}}
- apiVersion: v1
  kind: Service
  metadata: {name: other-class, namespace: shop, labels: {app: web}}
  spec: {type: LoadBalancer, loadBalancerClass: example.com/lb}
  status: {loadBalancer: {ingress: [{ip: 172.16.100.11}]}}
- apiVersion: v1
  kind: Service
  metadata: {name: kubernetes, namespace: default}
  spec: {type: ClusterIP}
- apiVersion: discovery.k8s.io/v1
  kind: EndpointSlice
  metadata: {name: web-abc, namespace: shop, labels: {kubernetes.io/service-name: web}}
  addressType: IPv4
  endpoints:
  - {addresses: [10.244.1.10], conditions: {ready: true}, nodeName: node1}
  - {addresses: [10.244.2.10], conditions: {ready: false}, nodeName: node2}
  - {addresses: [10.244.3.10], nodeName: node3}
- apiVersion: discovery.k8s.io/v1
  kind: EndpointSlice
  metadata: {name: web-fqdn, namespace: shop, labels: {kubernetes.io/service-name: web}}
  addressType: FQDN
  endpoints: [{addresses: [db.example.com]}]
`

func TestDecodeServicesAndEndpointSlices(t *testing.T) {
	o := &Objects{}
	if err := o.Decode("svc.yaml", []byte(servicesDoc)); err != nil {
		t.Fatal(err)
	}
	c, err := o.Cluster(ClusterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !c.ServicesKnown || len(c.Services) != 2 {
		t.Fatalf("ServicesKnown %v, services %+v (want the two LoadBalancer Services)", c.ServicesKnown, c.Services)
	}
	web := c.Services[0]
	if web.Namespace != "shop" || web.Name != "web" || web.ExternalTrafficPolicy != "Local" || len(web.VIPs) != 2 ||
		web.VIPs[1].String() != "fd00:172:16::10" {
		t.Errorf("web: %+v", web)
	}
	var eps []string
	for _, e := range web.Endpoints {
		ep := e.NodeName
		if len(e.Addresses) > 0 {
			ep += "@" + e.Addresses[0].String()
		}
		if e.Ready {
			ep += "+"
		}
		eps = append(eps, ep)
	}
	if got := strings.Join(eps, " "); got != "node1@10.244.1.10+ node2@10.244.2.10 node3@10.244.3.10+ +" {
		t.Errorf("endpoints (absent ready counts as ready; FQDN has no IP): %s", got)
	}
	if web.Announced {
		t.Error("no BGP configuration was given, yet the Service is announced")
	}
}

func TestServicesNotGivenAreUnknown(t *testing.T) {
	o := &Objects{}
	if err := o.Decode("c.yaml", []byte(multiDoc)); err != nil {
		t.Fatal(err)
	}
	if c, _ := o.Cluster(ClusterOptions{}); c.ServicesKnown {
		t.Error("a snapshot without Services must leave the VIP rules silent")
	}
}

func TestServiceAnnounced(t *testing.T) {
	const v2 = `apiVersion: cilium.io/v2
kind: CiliumBGPAdvertisement
metadata: {name: lb-vips, labels: {advertise: bgp}}
spec:
  advertisements:
  - advertisementType: Service
    service: {addresses: [LoadBalancerIP]}
    selector: {matchExpressions: [{key: app, operator: In, values: [web]}]}
  - advertisementType: Service
    service: {addresses: [ClusterIP]}
    selector: {matchLabels: {app: api}}
`
	const peerCfgSelecting = `apiVersion: cilium.io/v2
kind: CiliumBGPPeerConfig
metadata: {name: tor}
spec: {families: [{afi: ipv4, safi: unicast, advertisements: {matchLabels: {advertise: bgp}}}]}
`
	const peerCfgOther = `apiVersion: cilium.io/v2
kind: CiliumBGPPeerConfig
metadata: {name: tor}
spec: {families: [{afi: ipv4, safi: unicast, advertisements: {matchLabels: {advertise: other}}}]}
`
	const v1 = `apiVersion: cilium.io/v2alpha1
kind: CiliumBGPPeeringPolicy
metadata: {name: rack1}
spec:
  virtualRouters:
  - {localASN: 65010, exportPodCIDR: true, serviceSelector: {matchLabels: {io.kubernetes.service.namespace: shop}}}
`
	const v1ClusterIPOnly = `apiVersion: cilium.io/v2alpha1
kind: CiliumBGPPeeringPolicy
metadata: {name: rack1}
spec:
  virtualRouters:
  - {localASN: 65010, serviceSelector: {}, serviceAdvertisements: [ClusterIP]}
`
	const legacy = `apiVersion: v1
kind: ConfigMap
metadata: {name: bgp-config, namespace: kube-system}
data:
  config.yaml: |
    address-pools:
    - {name: default, protocol: bgp, addresses: [172.16.100.0/28]}
`
	const api = `apiVersion: v1
kind: Service
metadata: {name: api, namespace: shop, labels: {app: api}}
spec: {type: LoadBalancer}
status: {loadBalancer: {ingress: [{ip: 172.16.100.99}]}}
`
	cases := []struct {
		name, cfg string
		want      []string // "name by" per Service: web, other-class, api
	}{
		{"nothing configured", "", []string{"web ", "other-class ", "api "}},
		{"v2 advertisement", v2, []string{"web CiliumBGPAdvertisement lb-vips", "other-class ", "api "}},
		{"v2 advertisement a peer config selects", v2 + "---\n" + peerCfgSelecting,
			[]string{"web CiliumBGPAdvertisement lb-vips", "other-class ", "api "}},
		{"v2 advertisement no peer config selects", v2 + "---\n" + peerCfgOther, []string{"web ", "other-class ", "api "}},
		{"v1 peering policy, virtual namespace label", v1,
			[]string{"web CiliumBGPPeeringPolicy rack1", "other-class ", "api CiliumBGPPeeringPolicy rack1"}},
		{"v1 ClusterIP only", v1ClusterIPOnly, []string{"web ", "other-class ", "api "}},
		{"legacy address pool", legacy,
			[]string{"web ConfigMap kube-system/bgp-config (address pool default)", "other-class ", "api "}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := &Objects{}
			docs := servicesDoc + "---\n" + api
			if tc.cfg != "" {
				docs += "---\n" + tc.cfg
			}
			if err := o.Decode("c.yaml", []byte(docs)); err != nil {
				t.Fatal(err)
			}
			c, err := o.Cluster(ClusterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range c.Services {
				got = append(got, s.Name+" "+s.AnnouncedBy)
				if s.Announced != (s.AnnouncedBy != "") {
					t.Errorf("%s: Announced %v but AnnouncedBy %q", s.Name, s.Announced, s.AnnouncedBy)
				}
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestDecodeServiceErrorsSayWhereAndWhat(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"bad ingress IP", "kind: Service\nmetadata: {name: web}\nspec: {type: LoadBalancer}\nstatus:\n  loadBalancer:\n" +
			"    ingress:\n    - ip: 172.16.100.300\n", `c.yaml:7: Service web: "172.16.100.300" is not an IP address`},
		{"IPv6 in an IPv4 slice", "kind: EndpointSlice\nmetadata: {name: web-1}\naddressType: IPv4\nendpoints:\n" +
			"- addresses:\n  - fd00::1\n", `c.yaml:6: EndpointSlice web-1: "fd00::1" is not an IPv4 address`},
		{"address not a string", "kind: EndpointSlice\nmetadata: {name: web-1}\naddressType: IPv4\nendpoints:\n" +
			"- addresses:\n  - {ip: 10.0.0.1}\n", `c.yaml:6: EndpointSlice web-1: an endpoint address must be a string`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := (&Objects{}).Decode("c.yaml", []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
