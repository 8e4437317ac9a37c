package cilium

import (
	"fmt"
	"net/netip"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/validator"
)

// TestAdvertisedAttributes: the attributes of the CiliumBGPAdvertisements a
// node's peers select become the intent for its pod CIDRs and for the VIPs of
// the Services their selectors match; overlapping ones are merged and named;
// an advertisement no peer selects counts for nobody. The objects are the
// communities scenario's (testdata/policy/communities/objects.yaml).
func TestAdvertisedAttributes(t *testing.T) {
	b, err := os.ReadFile("../testdata/policy/communities/objects.yaml")
	if err != nil {
		t.Fatal(err)
	}
	objects := string(b) + "\n---\n" + `apiVersion: v1
kind: Node
metadata: {name: node1, labels: {kubernetes.io/os: linux, rack: a}}
---
apiVersion: v1
kind: Node
metadata: {name: node2, labels: {kubernetes.io/os: linux, rack: b}}
`
	const pods = "[65010:100 65535:65281] [65010:1:1] pref [200] by [pods]"
	const vip = "[65010:200] [65010:2:2] pref [] by [web-a web-b]"
	badValues := strings.Replace(strings.Replace(objects, `"65010:200"`, `"65010:70000"`, 1), "wellKnown: [no-export]",
		"wellKnown: [no-exporting]", 1)
	badUnused := strings.Replace(objects, `{communities: {standard: ["65010:666"]}}`,
		`{communities: {standard: ["65010:666"]}, localPreference: 4294967296}`, 1)
	// A second Service shares the VIP (LB-IPAM's sharing key) with other advertisements.
	shared := strings.Replace(objects, `{communities: {standard: ["65010:200"]}}`,
		`{communities: {standard: ["65010:200"]}, localPreference: 100}`, 1) + `
---
apiVersion: cilium.io/v2
kind: CiliumBGPAdvertisement
metadata: {name: other, labels: {advertise: bgp}}
spec:
  advertisements:
  - advertisementType: Service
    service: {addresses: [LoadBalancerIP]}
    selector: {matchLabels: {app: other}}
    attributes: {communities: {standard: ["65010:300"]}, localPreference: 300}
---
apiVersion: v1
kind: Service
metadata: {name: other, namespace: shop, labels: {app: other}}
spec: {type: LoadBalancer, selector: {app: other}, ports: [{port: 81}]}
status:
  loadBalancer: {ingress: [{ip: 172.16.100.10}]}
`
	for _, tc := range []struct {
		name, yaml   string
		live         bool   // ClusterOptions.BadAdvertisement set, as the inventory does
		node1, node2 string // pod CIDR intent / VIP intent
		err          string
		reported     int // advertisements reported to BadAdvertisement
	}{
		{name: "every node", yaml: objects, node1: pods + " / " + vip, node2: pods + " / " + vip},
		{name: "rack a only", yaml: strings.Replace(objects, "matchLabels: {kubernetes.io/os: linux}", "matchLabels: {rack: a}", 1),
			node1: pods + " / " + vip, node2: "<nil> / <nil>"},
		{name: "no attributes", yaml: strings.ReplaceAll(objects, "attributes:", "x:"), node1: "nil", node2: "nil"},
		{name: "bad values, live: their prefixes unjudged", yaml: badValues, live: true, reported: 2,
			node1: "<nil> / <nil>", node2: "<nil> / <nil>"},
		{name: "bad localPreference no peer selects, live", yaml: badUnused, live: true, reported: 1,
			node1: pods + " / " + vip, node2: pods + " / " + vip},
		{name: "bad localPreference no peer selects, offline", yaml: badUnused,
			err: `objects.yaml:62: CiliumBGPAdvertisement unused: advertisements[0].attributes: ` +
				`localPreference 4294967296 is not a 32-bit unsigned number`},
		{name: "shared VIP: intents merged, largest localPreference", yaml: shared,
			node1: pods + " / [65010:200 65010:300] [65010:2:2] pref [300] by [other web-a web-b]",
			node2: pods + " / [65010:200 65010:300] [65010:2:2] pref [300] by [other web-a web-b]"},
		{name: "bad values", yaml: badValues, err: `objects.yaml:32: CiliumBGPAdvertisement pods: advertisements[0].attributes: ` +
			`communities.wellKnown[0] "no-exporting" is not a well-known community name` + "\n" +
			`objects.yaml:44: CiliumBGPAdvertisement web-a: advertisements[0].attributes: communities.standard[0] ` +
			`"65010:70000" is not a standard community (ASN:VALUE, each 0-65535, or a 32-bit number)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &Objects{}
			if err := o.Decode("objects.yaml", []byte(tc.yaml)); err != nil {
				t.Fatal(err)
			}
			var opts ClusterOptions
			reported := 0
			if tc.live {
				opts.BadAdvertisement = func(error) { reported++ }
			}
			c, err := o.Cluster(opts)
			if reported != tc.reported {
				t.Errorf("%d advertisements reported, want %d", reported, tc.reported)
			}
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for node, want := range map[string]string{"node1": tc.node1, "node2": tc.node2} {
				got := "nil"
				if a := c.Advertised; a != nil {
					got = intentString(a.PodCIDR(node)) + " / " + intentString(a.VIP(node, netip.MustParseAddr("172.16.100.10")))
				}
				if got != want {
					t.Errorf("%s: %s, want %s", node, got, want)
				}
			}
			// The Services in the other order (the inventory's come from a map) give the same intents.
			slices.Reverse(o.Services)
			if r, err := o.Cluster(opts); err != nil || !reflect.DeepEqual(r.Advertised, c.Advertised) {
				t.Errorf("Services reversed: %v, %v; want %v", r.Advertised, err, c.Advertised)
			}
		})
	}
}

func intentString(in *validator.AttributeIntent) string {
	if in == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%v %v pref %v by %v", in.Communities, in.LargeCommunities, in.LocalPrefs, in.Advertisements)
}
