package lint

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/cilium"
)

// TestAdvertisementOverlaps: two advertisements selecting one Service, or the
// pod CIDRs, for the same peers with different attributes are a warning at
// the second; the same attributes, other peers or other Services are not.
func TestAdvertisementOverlaps(t *testing.T) {
	bgp := map[string]string{"advertise": "bgp"}
	web := cilium.Service{Metadata: cilium.Meta{Name: "web", Namespace: "shop",
		Labels: map[string]string{"app": "web", "tier": "front"}}}
	web.Spec.Type = "LoadBalancer"
	// attrs are an advertisement's attributes, written as Cilium's CRD has them.
	attrs := func(yamlText string) *cilium.BGPAttributes {
		if yamlText == "" {
			return nil
		}
		var a cilium.BGPAttributes
		if err := yaml.Unmarshal([]byte(yamlText), &a); err != nil {
			t.Fatal(err)
		}
		return &a
	}
	svcAd := func(name, where string, labels map[string]string, sel map[string]string, attrYAML string) advertisement {
		e := cilium.BGPAdvertisementEntry{AdvertisementType: "Service", Selector: &cilium.LabelSelector{MatchLabels: sel},
			Attributes: attrs(attrYAML)}
		e.Service = &struct {
			Addresses []string `yaml:"addresses"`
		}{Addresses: []string{"LoadBalancerIP"}}
		return advert(where, name, labels, e)
	}
	podAd := func(name, where string, labels map[string]string, attrYAML string) advertisement {
		return advert(where, name, labels, cilium.BGPAdvertisementEntry{AdvertisementType: "PodCIDR",
			Attributes: attrs(attrYAML)})
	}
	family := func(labels map[string]string) cilium.BGPFamily {
		return cilium.BGPFamily{AFI: "ipv4", SAFI: "unicast", Advertisements: &cilium.LabelSelector{MatchLabels: labels}}
	}
	const (
		std200 = "communities: {standard: [\"65010:200\"]}"
		large2 = "communities: {large: [\"65010:2:2\"]}"
	)
	webA := svcAd("web-a", "ads.yaml:1", bgp, map[string]string{"app": "web"}, std200)
	webB := svcAd("web-b", "ads.yaml:12", bgp, map[string]string{"tier": "front"}, large2)
	for _, tc := range []struct {
		name string
		in   Input
		want []string
	}{
		{name: "two advertisements, one Service, other attributes",
			in: Input{Cilium: objects(webA, webB, web, peerCfg(family(bgp)))},
			want: []string{"ads.yaml:12: warning: CiliumBGPAdvertisement web-b: spec.advertisements[0].attributes: selects " +
				"Service shop/web for the same peers as CiliumBGPAdvertisement web-a (spec.advertisements[0]), with other " +
				"attributes (here: large communities 65010:2:2; there: communities 65010:200)"}},
		{name: "without peer configs: the same peers",
			in:   Input{Cilium: objects(webB, webA, web)},
			want: []string{"web-b: spec.advertisements[0].attributes: selects Service shop/web"}},
		{name: "one without attributes", in: Input{Cilium: objects(webA,
			svcAd("web-plain", "ads.yaml:30", bgp, map[string]string{"app": "web"}, ""), web)},
			want: []string{"web-plain: spec.advertisements[0]: selects Service shop/web for the same peers as " +
				"CiliumBGPAdvertisement web-a (spec.advertisements[0]), with other attributes (here: none; there: communities 65010:200)"}},
		{name: "same attributes", in: Input{Cilium: objects(webA,
			svcAd("web-c", "ads.yaml:30", bgp, map[string]string{"tier": "front"}, std200), web)}},
		{name: "other Services", in: Input{Cilium: objects(webA,
			svcAd("api", "ads.yaml:30", bgp, map[string]string{"app": "api"}, "communities: {standard: [\"65010:300\"]}"),
			web)}},
		{name: "other peers", in: Input{Cilium: objects(webA,
			svcAd("web-tor", "ads.yaml:30", map[string]string{"advertise": "tor"}, map[string]string{"tier": "front"}, ""),
			web, peerCfg(family(bgp)), namedPeerCfg("pc.yaml:1", "tor", family(map[string]string{"advertise": "tor"})))}},
		{name: "pod CIDRs twice, reported once over two families",
			in: Input{Cilium: objects(podAd("pods-a", "a.yaml:1", bgp, "communities: {standard: [\"65010:100\"]}"),
				podAd("pods-b", "b.yaml:1", bgp, "communities: {standard: [\"65010:101\"]}"),
				peerCfg(family(bgp), cilium.BGPFamily{AFI: "ipv6", SAFI: "unicast",
					Advertisements: &cilium.LabelSelector{MatchLabels: bgp}}))},
			want: []string{"b.yaml:1: warning: CiliumBGPAdvertisement pods-b: spec.advertisements[0].attributes: selects " +
				"the pod CIDRs for the same peers as CiliumBGPAdvertisement pods-a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &reporter{}
			checkAdvertisementOverlaps(tc.in, r)
			if len(r.problems) != len(tc.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(r.problems), len(tc.want), problemsString(r.problems))
			}
			for i, w := range tc.want {
				if !strings.Contains(r.problems[i].String(), w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, r.problems[i].String(), w)
				}
			}
		})
	}
}
