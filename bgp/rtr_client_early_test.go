package bgp

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	api "github.com/osrg/gobgp/v4/api"
	"github.com/osrg/gobgp/v4/pkg/apiutil"
	"github.com/osrg/gobgp/v4/pkg/packet/bgp"

	"github.com/routewarden/routewarden/internal/wait"
)

// TestGoBGPConnectsBeforeTheFirstSet: GoBGP's RTR client connects while
// routewarden's inventory has not synced, gets No Data, and holds serial 0;
// it asks again only on a Serial Notify of a serial it does not hold. The
// first ROA set is notified with a serial of its own, so GoBGP reads it and
// node1's CIDR turns Valid (with the first set at serial 0 it stayed
// NotFound for good).
func TestGoBGPConnectsBeforeTheFirstSet(t *testing.T) {
	t.Parallel()
	inv := &rovCluster{nodes: []int{1, 2}, version: 1, unsynced: true}
	rs, s := startRTRAndGoBGP(t, inv)
	ctx := context.Background()
	host, port, _ := net.SplitHostPort(rs.Addr())
	p, _ := strconv.Atoi(port)
	if err := s.AddRpki(ctx, &api.AddRpkiRequest{Address: host, Port: uint32(p), Lifetime: 3600}); err != nil {
		t.Fatal(err)
	}
	wait.True(t, "GoBGP's first query, answered with No Data", 30*time.Second, func() bool {
		cs := rs.Clients()
		return len(cs) == 1 && cs[0].Version >= 0 && !rs.Status().Ready
	})
	if _, err := s.AddPath(apiutil.AddPathRequest{Paths: []*apiutil.Path{originPath(t, "10.244.1.0/24", 65011)}}); err != nil {
		t.Fatal(err)
	}
	inv.mu.Lock()
	inv.unsynced = false
	inv.mu.Unlock()
	wait.True(t, "node1's CIDR Valid once the first set is out", 30*time.Second, func() bool {
		state := api.ValidationState_VALIDATION_STATE_UNSPECIFIED
		_ = s.ListPath(apiutil.ListPathRequest{TableType: api.TableType_TABLE_TYPE_GLOBAL, Family: bgp.RF_IPv4_UC},
			func(_ bgp.NLRI, paths []*apiutil.Path) {
				for _, p := range paths {
					if p.Validation != nil {
						state = p.Validation.State
					}
				}
			})
		return state == api.ValidationState_VALIDATION_STATE_VALID
	})
}
