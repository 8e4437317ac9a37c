package lint

import (
	"strings"
	"testing"
)

// TestAdvertisementOverlaps: two advertisements selecting one Service, or the
// pod CIDRs, for the same peers with different attributes are a warning at
// the second; the same attributes, other peers or other Services are not.
func TestAdvertisementOverlaps(t *testing.T) {
	bgp := map[string]string{"advertise": "bgp"}
	web := ServiceLabels{Name: "shop/web", Labels: map[string]string{"app": "web", "tier": "front"}}
	svcAd := func(name, where string, labels map[string]string, sel map[string]string, attrs string) Advertisement {
		return Advertisement{Where: where, Name: name, Labels: labels, Types: []string{"Service"},
			Entries: []AdvertisementEntry{{Type: "Service", LoadBalancerIP: true, Selector: &Selector{MatchLabels: sel},
				Attributes: attrs}}}
	}
	podAd := func(name, where string, labels map[string]string, attrs string) Advertisement {
		return Advertisement{Where: where, Name: name, Labels: labels, Types: []string{"PodCIDR"},
			Entries: []AdvertisementEntry{{Type: "PodCIDR", Attributes: attrs}}}
	}
	family := func(labels map[string]string) Family {
		return Family{AFI: "ipv4", SAFI: "unicast", Advertisements: &Selector{MatchLabels: labels}}
	}
	webA := svcAd("web-a", "ads.yaml:1", bgp, map[string]string{"app": "web"}, "communities 65010:200")
	webB := svcAd("web-b", "ads.yaml:12", bgp, map[string]string{"tier": "front"}, "large communities 65010:2:2")
	for _, tc := range []struct {
		name string
		in   Input
		want []string
	}{
		{name: "two advertisements, one Service, other attributes",
			in: Input{Advertisements: []Advertisement{webA, webB}, Services: []ServiceLabels{web},
				PeerConfigs: []PeerConfig{peerCfg(family(bgp))}},
			want: []string{"ads.yaml:12: warning: CiliumBGPAdvertisement web-b: spec.advertisements[0].attributes: selects " +
				"Service shop/web for the same peers as CiliumBGPAdvertisement web-a (spec.advertisements[0]), with other " +
				"attributes (here: large communities 65010:2:2; there: communities 65010:200)"}},
		{name: "without peer configs: the same peers",
			in:   Input{Advertisements: []Advertisement{webB, webA}, Services: []ServiceLabels{web}},
			want: []string{"web-b: spec.advertisements[0].attributes: selects Service shop/web"}},
		{name: "one without attributes", in: Input{Advertisements: []Advertisement{webA,
			svcAd("web-plain", "ads.yaml:30", bgp, map[string]string{"app": "web"}, "")}, Services: []ServiceLabels{web}},
			want: []string{"web-plain: spec.advertisements[0]: selects Service shop/web for the same peers as " +
				"CiliumBGPAdvertisement web-a (spec.advertisements[0]), with other attributes (here: none; there: communities 65010:200)"}},
		{name: "same attributes", in: Input{Advertisements: []Advertisement{webA,
			svcAd("web-c", "ads.yaml:30", bgp, map[string]string{"tier": "front"}, "communities 65010:200")},
			Services: []ServiceLabels{web}}},
		{name: "other Services", in: Input{Advertisements: []Advertisement{webA,
			svcAd("api", "ads.yaml:30", bgp, map[string]string{"app": "api"}, "communities 65010:300")},
			Services: []ServiceLabels{web}}},
		{name: "other peers", in: Input{Advertisements: []Advertisement{webA,
			svcAd("web-tor", "ads.yaml:30", map[string]string{"advertise": "tor"}, map[string]string{"tier": "front"}, "")},
			Services: []ServiceLabels{web}, PeerConfigs: []PeerConfig{peerCfg(family(bgp)),
				{Where: "pc.yaml:1", Name: "tor", Families: []Family{family(map[string]string{"advertise": "tor"})}}}}},
		{name: "pod CIDRs twice, reported once over two families",
			in: Input{Advertisements: []Advertisement{podAd("pods-a", "a.yaml:1", bgp, "communities 65010:100"),
				podAd("pods-b", "b.yaml:1", bgp, "communities 65010:101")},
				PeerConfigs: []PeerConfig{peerCfg(family(bgp), Family{AFI: "ipv6", SAFI: "unicast",
					Advertisements: &Selector{MatchLabels: bgp}})}},
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
