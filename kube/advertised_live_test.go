package kube

import (
	"fmt"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/routewarden/routewarden/validator"
)

// TestInventoryBadAdvertisement: in the live inventory a CiliumBGPAdvertisement
// whose attributes cannot be read (values the CRD admits) does not stop the
// translation: it is counted as an unreadable object and the other
// advertisements' intents stay (TestAdvertisedAttributes: the prefixes the bad
// one selects have none).
func TestInventoryBadAdvertisement(t *testing.T) {
	gvr := bgpAdvertVersions[0]
	for _, tc := range []struct {
		name  string
		attrs map[string]any // of the bad (Service) advertisement
	}{
		{name: "localPreference -1", attrs: map[string]any{"localPreference": int64(-1)}},
		{name: "localPreference 2^32", attrs: map[string]any{"localPreference": int64(1 << 32)}},
		{name: "bad community", attrs: map[string]any{"communities": map[string]any{"standard": []any{"65010:70000"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := offlineInventory(t, InventoryOptions{})
			s := testNodeSet(testNode("node1", "10.0.0.11"))
			s.objects[gvr] = map[string]*decodedObject{
				"good": decodeObjectOf(gvr, testAdvert("good", "PodCIDR",
					map[string]any{"communities": map[string]any{"standard": []any{"65010:200"}}})),
				"bad": decodeObjectOf(gvr, testAdvert("bad", "Service", tc.attrs)),
			}
			inv.vipGVRs = []schema.GroupVersionResource{gvr}
			inv.pending = s
			inv.promote(s)
			c, _, err := inv.Cluster(time.Now())
			if err != nil {
				t.Fatal(err)
			}
			a := c.Advertised
			if a == nil || len(a.Groups) != 1 || a.NodeGroup["node1"] != 0 {
				t.Fatalf("advertised %+v, want node1 in one group", a)
			}
			if got, want := intentString(a.Groups[0].PodCIDR), "[65010:200] [] pref [] by [good]"; got != want {
				t.Errorf("pod CIDR intent %s, want %s", got, want)
			}
			var m dto.Metric
			if err := inv.metrics.badObjects.Write(&m); err != nil || m.GetCounter().GetValue() != 1 {
				t.Errorf("%v unreadable objects counted (%v), want 1", m.GetCounter().GetValue(), err)
			}
		})
	}
}

func testAdvert(name, typ string, attrs map[string]any) *unstructured.Unstructured {
	ad := map[string]any{"advertisementType": typ, "attributes": attrs}
	if typ == "Service" {
		ad["service"] = map[string]any{"addresses": []any{"LoadBalancerIP"}}
		ad["selector"] = map[string]any{}
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cilium.io/v2", "kind": "CiliumBGPAdvertisement",
		"metadata": map[string]any{"name": name}, "spec": map[string]any{"advertisements": []any{ad}}}}
}

// intentString is an intent in one line (as cilium's tests write it).
func intentString(in *validator.AttributeIntent) string {
	if in == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%v %v pref %v by %v", in.Communities, in.LargeCommunities, in.LocalPrefs, in.Advertisements)
}
