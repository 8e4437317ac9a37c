package rib

import (
	"net/netip"
	"testing"
	"time"

	"github.com/routewarden/routewarden/validator"
)

// TestStoreChangedAt: the table's last change time moves with each update,
// announcement or withdrawal, on the store's clock.
func TestStoreChangedAt(t *testing.T) {
	s := NewStore()
	if !s.ChangedAt().IsZero() {
		t.Fatalf("ChangedAt %s before any change", s.ChangedAt())
	}
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	peer := netip.MustParseAddr("127.0.1.11")
	r := validator.Route{Prefix: netip.MustParsePrefix("10.244.1.0/24"),
		Attributes: &validator.Attributes{NextHop: netip.MustParseAddr("10.0.0.11"), Peer: peer}}
	for i, tc := range []struct {
		announce, withdraw []validator.Route
	}{{announce: []validator.Route{r}}, {withdraw: []validator.Route{r}}} {
		at := t0.Add(time.Duration(i) * time.Second)
		s.now = func() time.Time { return at }
		s.UpdateRoutes(peer, tc.announce, tc.withdraw)
		if got := s.ChangedAt(); !got.Equal(at) {
			t.Errorf("change %d: ChangedAt %s, want %s", i, got, at)
		}
	}
}
