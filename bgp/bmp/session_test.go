package bmp

import (
	"bytes"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gobgp "github.com/osrg/gobgp/v4/pkg/packet/bgp"
	gbmp "github.com/osrg/gobgp/v4/pkg/packet/bmp"
	"github.com/prometheus/common/expfmt"

	"github.com/routewarden/routewarden/internal/wait"
)

const (
	post = gbmp.BMP_PEER_FLAG_POST_POLICY
	out  = gbmp.BMP_PEER_FLAG_ADJ_RIB_TYP
)

// TestSessionMessages feeds crafted BMP streams to a station over TCP and
// checks what the store holds once the stream ends with a Stats Report.
func TestSessionMessages(t *testing.T) {
	t.Parallel()
	p := netip.MustParseAddr("127.0.1.11")
	line := func(prefix string, id uint32, nh string) string {
		return prefix + " peer=127.0.1.11 nh=" + nh + " as=65010 id=127.0.1.11 path=[65010] pathid=" + itoa(id)
	}
	cases := []struct {
		name string
		msgs func(t *testing.T) [][]byte
		want []string
	}{
		{"pre-policy IPv4 and IPv6", func(t *testing.T) [][]byte {
			return [][]byte{peerUp(t, p, 0, 0),
				routeMonitoring(t, p, 0, "10.0.0.11", []gobgp.PathNLRI{v4("10.244.1.0/24", 0), v4("10.244.9.0/24", 0)}, false, false),
				routeMonitoring(t, p, 0, "fd00::11", []gobgp.PathNLRI{v6("fd00:10:244:1::/64", 0)}, false, false)}
		}, []string{line("10.244.1.0/24", 0, "10.0.0.11"), line("10.244.9.0/24", 0, "10.0.0.11"),
			line("fd00:10:244:1::/64", 0, "fd00::11")}},
		{"withdrawals", func(t *testing.T) [][]byte {
			return [][]byte{
				routeMonitoring(t, p, 0, "10.0.0.11", []gobgp.PathNLRI{v4("10.244.1.0/24", 0), v4("10.244.9.0/24", 0)}, false, false),
				routeMonitoring(t, p, 0, "fd00::11", []gobgp.PathNLRI{v6("fd00:10:244:1::/64", 0)}, false, false),
				routeMonitoring(t, p, 0, "", []gobgp.PathNLRI{v4("10.244.9.0/24", 0)}, true, false),
				routeMonitoring(t, p, 0, "", []gobgp.PathNLRI{v6("fd00:10:244:1::/64", 0)}, true, false)}
		}, []string{line("10.244.1.0/24", 0, "10.0.0.11")}},
		{"ADD-PATH from the Peer Up OPENs: two paths of one prefix", func(t *testing.T) [][]byte {
			return [][]byte{peerUp(t, p, gobgp.BGP_ADD_PATH_RECEIVE, gobgp.BGP_ADD_PATH_SEND),
				routeMonitoring(t, p, 0, "10.0.0.11", []gobgp.PathNLRI{v4("10.244.1.0/24", 1)}, false, true),
				routeMonitoring(t, p, 0, "10.0.0.12", []gobgp.PathNLRI{v4("10.244.1.0/24", 2)}, false, true),
				routeMonitoring(t, p, 0, "fd00::11", []gobgp.PathNLRI{v6("fd00:10:244:1::/64", 7)}, false, true)}
		}, []string{line("10.244.1.0/24", 1, "10.0.0.11"), line("10.244.1.0/24", 2, "10.0.0.12"),
			line("fd00:10:244:1::/64", 7, "fd00::11")}},
		{"ADD-PATH negotiated, IDs left out (FRR 8.4): two prefixes in one UPDATE", func(t *testing.T) [][]byte {
			return [][]byte{peerUp(t, p, gobgp.BGP_ADD_PATH_RECEIVE, gobgp.BGP_ADD_PATH_SEND),
				routeMonitoring(t, p, 0, "10.0.0.11", []gobgp.PathNLRI{v4("10.244.1.0/24", 0), v4("10.244.2.0/24", 0)}, false, false),
				routeMonitoring(t, p, 0, "10.0.0.11", []gobgp.PathNLRI{v4("10.244.3.0/24", 5), v4("10.244.4.0/24", 6)}, false, true),
				routeMonitoring(t, p, 0, "", []gobgp.PathNLRI{v4("10.244.2.0/24", 9)}, true, true)}
		}, []string{line("10.244.1.0/24", 0, "10.0.0.11"), line("10.244.3.0/24", 5, "10.0.0.11"), line("10.244.4.0/24", 6, "10.0.0.11")}},
		{"post-policy supersedes pre-policy", func(t *testing.T) [][]byte {
			return [][]byte{
				routeMonitoring(t, p, 0, "10.0.0.11", []gobgp.PathNLRI{v4("10.244.9.0/24", 0)}, false, false),
				routeMonitoring(t, p, post, "10.0.0.11", []gobgp.PathNLRI{v4("10.244.1.0/24", 0)}, false, false),
				routeMonitoring(t, p, 0, "10.0.0.11", []gobgp.PathNLRI{v4("10.244.8.0/24", 0)}, false, false)}
		}, []string{line("10.244.1.0/24", 0, "10.0.0.11")}},
		{"Adj-RIB-Out ignored", func(t *testing.T) [][]byte {
			return [][]byte{routeMonitoring(t, p, out, "10.0.0.11", []gobgp.PathNLRI{v4("10.244.1.0/24", 0)}, false, false)}
		}, nil},
		{"peer down drops the peer's routes", func(t *testing.T) [][]byte {
			return [][]byte{peerUp(t, p, 0, 0),
				routeMonitoring(t, p, 0, "10.0.0.11", []gobgp.PathNLRI{v4("10.244.1.0/24", 0)}, false, false),
				peerDownMsg(t, p)}
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := startStation(t)
			stream := slices.Concat(append([][]byte{initiation(t, "tor1")}, tc.msgs(t)...)...)
			// A final Stats Report marks the end of the stream.
			stream = append(stream, serialize(t, gbmp.NewBMPStatisticsReport(peerHdr(p, 0),
				[]gbmp.BMPStatsTLVInterface{gbmp.NewBMPStatsTLV64(gbmp.BMP_STAT_TYPE_ADJ_RIB_IN, 42)}))...)
			st.dial(t, stream)
			wait.True(t, "the stats report", 10*time.Second, func() bool {
				return bytes.Contains(gather(t, st), []byte(`routewarden_bmp_peer_stat{peer="127.0.1.11",router="127.0.0.1",stat="adj-rib-in"} 42`))
			})
			if got, want := routes(st.store), slices.Sorted(slices.Values(tc.want)); !slices.Equal(got, want) {
				t.Errorf("store holds\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

func itoa(n uint32) string { return strconv.FormatUint(uint64(n), 10) }

// gather renders the station's metrics in the text format.
func gather(t testing.TB, st *testStation) []byte {
	t.Helper()
	mfs, err := st.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// TestReconnect: a router that reconnects before its old connection ends
// keeps the routes its new session monitors when the old one closes.
func TestReconnect(t *testing.T) {
	t.Parallel()
	p := netip.MustParseAddr("127.0.1.11")
	st := startStation(t)
	rm := func(prefix string) []byte {
		return routeMonitoring(t, p, 0, "10.0.0.11", []gobgp.PathNLRI{v4(prefix, 0)}, false, false)
	}
	old := st.dial(t, slices.Concat(initiation(t, "tor1"), rm("10.244.1.0/24")))
	waitRoutes(t, st.store, []string{"10.244.1.0/24 peer=127.0.1.11 nh=10.0.0.11 as=65010 id=127.0.1.11 path=[65010] pathid=0"})
	st.dial(t, slices.Concat(initiation(t, "tor1"), rm("10.244.1.0/24"), rm("10.244.2.0/24")))
	want := []string{"10.244.1.0/24 peer=127.0.1.11 nh=10.0.0.11 as=65010 id=127.0.1.11 path=[65010] pathid=0",
		"10.244.2.0/24 peer=127.0.1.11 nh=10.0.0.11 as=65010 id=127.0.1.11 path=[65010] pathid=0"}
	waitRoutes(t, st.store, want)
	old.Close()
	wait.True(t, "the old session to close", 10*time.Second, func() bool {
		return strings.Count(st.logs.String(), "BMP session closed") == 1
	})
	waitRoutes(t, st.store, want)
}

// TestReconnectWithdrawn: a route withdrawn while the router reconnected (the
// new session's table lacks it) is gone once the old session closes.
func TestReconnectWithdrawn(t *testing.T) {
	t.Parallel()
	p := netip.MustParseAddr("127.0.1.11")
	st := startStation(t)
	rm := func(prefix string) []byte {
		return routeMonitoring(t, p, 0, "10.0.0.11", []gobgp.PathNLRI{v4(prefix, 0)}, false, false)
	}
	a := "10.244.1.0/24 peer=127.0.1.11 nh=10.0.0.11 as=65010 id=127.0.1.11 path=[65010] pathid=0"
	b := "10.244.2.0/24 peer=127.0.1.11 nh=10.0.0.11 as=65010 id=127.0.1.11 path=[65010] pathid=0"
	old := st.dial(t, slices.Concat(initiation(t, "tor1"), rm("10.244.1.0/24"), rm("10.244.2.0/24")))
	waitRoutes(t, st.store, []string{a, b})
	st.dial(t, slices.Concat(initiation(t, "tor1"), rm("10.244.1.0/24")))
	waitRoutes(t, st.store, []string{a})
	old.Close()
	wait.True(t, "the old session to close", 10*time.Second, func() bool {
		return strings.Count(st.logs.String(), "BMP session closed") == 1
	})
	waitRoutes(t, st.store, []string{a})
}

// TestStatsSeries: statistics of unknown types or AFIs get fixed names, and
// a peer's series go with the session that reported them.
func TestStatsSeries(t *testing.T) {
	t.Parallel()
	p := netip.MustParseAddr("127.0.1.11")
	st := startStation(t)
	stats := serialize(t, gbmp.NewBMPStatisticsReport(peerHdr(p, 0), []gbmp.BMPStatsTLVInterface{
		gbmp.NewBMPStatsTLV64(gbmp.BMP_STAT_TYPE_ADJ_RIB_IN, 42),
		gbmp.NewBMPStatsTLV64(4242, 7),
		gbmp.NewBMPStatsTLVPerAfiSafi64(gbmp.BMP_STAT_TYPE_PER_AFI_SAFI_ADJ_RIB_IN, 9999, 1, 3),
		gbmp.NewBMPStatsTLVPerAfiSafi64(gbmp.BMP_STAT_TYPE_PER_AFI_SAFI_ADJ_RIB_IN, 1, 1, 5)}))
	conn := st.dial(t, slices.Concat(initiation(t, "tor1"), stats))
	series := func(stat string, v int) []byte {
		return []byte(`routewarden_bmp_peer_stat{peer="127.0.1.11",router="127.0.0.1",stat="` + stat + `"} ` + strconv.Itoa(v))
	}
	wait.True(t, "the stats report", 10*time.Second, func() bool { return bytes.Contains(gather(t, st), series("adj-rib-in", 42)) })
	got := gather(t, st)
	for _, want := range [][]byte{series("other", 7), series("adj-rib-in-per-afi/other", 3), series("adj-rib-in-per-afi/1/1", 5)} {
		if !bytes.Contains(got, want) {
			t.Errorf("no %s in\n%s", want, got)
		}
	}
	if bytes.Contains(got, []byte("4242")) || bytes.Contains(got, []byte("9999")) {
		t.Errorf("a label value from the router's input:\n%s", got)
	}
	conn.Close()
	wait.True(t, "the peer's series to go with its session", 10*time.Second, func() bool {
		return !bytes.Contains(gather(t, st), []byte("routewarden_bmp_peer_stat{"))
	})
}
