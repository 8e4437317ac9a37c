package dump

import (
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/internal/golden"
	"github.com/routewarden/routewarden/validator"
)

// TestVariants reads what FRR 8.4's bgpd and BIRD 2.0.12 printed for a ToR
// holding a node's pod CIDR and its own routes (testdata/variants,
// hack/dump-variants/gen.sh): every variant is read with the peer it belongs
// to, the ToR's own paths as the router's (no peer, its router ID), and each
// route says which attributes its command cannot show; errors are compared whole.
func TestVariants(t *testing.T) {
	var b strings.Builder
	for _, tc := range []struct {
		file string
		peer string
	}{
		{"tor-unicast.json", ""},
		{"tor-unicast-detail.json", ""},
		{"tor-neighbor-routes.json", ""},
		{"tor-received-routes.json", ""},
		{"tor-received-routes.json", "127.0.1.11"},
		{"node-advertised-routes.json", ""},
		{"node-advertised-routes.json", "127.0.1.11"},
		{"bird-show-route-all.txt", ""},
		{"bird-show-route.txt", ""},
	} {
		var opts []Option
		name := tc.file
		if tc.peer != "" {
			opts = append(opts, WithPeer(netip.MustParseAddr(tc.peer)))
			name += "@" + tc.peer
		}
		fmt.Fprintf(&b, "== %s\n", name)
		rs, format, err := ReadFile(filepath.Join("testdata", "variants", tc.file), "auto", opts...)
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
			continue
		}
		for _, r := range rs {
			a := r.Attrs()
			fmt.Fprintf(&b, "%s %s: communities %v %v, local pref %d %v, unseen %s", format, r, a.Communities,
				a.LargeCommunities, a.LocalPref, a.HasLocalPref, unseenNames(a.Unseen))
			if h := Hint(format, a.Unseen); h != "" {
				fmt.Fprintf(&b, "; fuller: %s", h)
			}
			b.WriteString("\n")
		}
	}
	golden.Assert(t, filepath.Join("testdata", "variants", "read.golden"), []byte(b.String()))
}

func unseenNames(s validator.AttrSet) string {
	var names []string
	for _, n := range []struct {
		bit  validator.AttrSet
		name string
	}{{validator.UnseenCommunities, "communities"}, {validator.UnseenLargeCommunities, "large-communities"},
		{validator.UnseenLocalPref, "local-pref"}, {validator.UnseenASPath, "as-path"}, {validator.UnseenNextHop, "next-hop"}} {
		if s.Has(n.bit) {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}
