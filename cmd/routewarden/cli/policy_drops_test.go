package cli

import (
	"net/netip"
	"testing"
	"time"

	"github.com/routewarden/routewarden/demo"
	"github.com/routewarden/routewarden/validator"
)

// TestWithPolicyDrops: the loop's cluster carries the store's drops, without
// changing the source's cluster, and its version moves when the cluster's or
// the drops' version does, and only then.
func TestWithPolicyDrops(t *testing.T) {
	src := demo.NewCluster(demo.InitialCluster())
	var drops []validator.PolicyDrop
	var dv uint64
	c := &withPolicyDrops{ClusterSource: src, drops: func() ([]validator.PolicyDrop, uint64) { return drops, dv }}
	version := func() (*validator.Cluster, uint64) {
		cl, v, err := c.Cluster(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return cl, v
	}
	_, v1 := version()
	if _, v := version(); v != v1 {
		t.Errorf("nothing changed: version %d → %d", v1, v)
	}
	drops, dv = []validator.PolicyDrop{{Router: "tor1", Route: validator.Route{Prefix: netip.MustParsePrefix("10.244.2.0/24")}}}, 1
	cl, v2 := version()
	if v2 == v1 || len(cl.PolicyDrops) != 1 {
		t.Errorf("drops changed: version %d → %d, %d drops", v1, v2, len(cl.PolicyDrops))
	}
	if own, _, _ := src.Cluster(time.Now()); len(own.PolicyDrops) != 0 {
		t.Errorf("the source's cluster was changed: %+v", own.PolicyDrops)
	}
	if _, v := version(); v != v2 {
		t.Errorf("same drops: version %d → %d", v2, v)
	}
}
