package dump

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func read(t *testing.T, data, format string) (int, string, error) {
	t.Helper()
	rs, f, err := Read("in", bufio.NewReader(strings.NewReader(data)), format)
	return len(rs), f, err
}

func TestBadInputSaysWhereAndWhat(t *testing.T) {
	cases := []struct {
		name, data, format, want string
	}{
		{"gobgp syntax", "{\n\"10.0.0.0/24\": [\n{\"nlri\": }\n", "gobgp", "in:3: invalid JSON"},
		{"gobgp type", "{\"10.0.0.0/24\": {\"nlri\": 1}}", "gobgp", "in:1: JSON path $"},
		{"gobgp bad prefix", `{"x": [{"nlri": {"prefix": "10.0.0.0/99"}}]}`, "gobgp", `$["x"][0]: nlri.prefix "10.0.0.0/99"`},
		{"gobgp bad nexthop", `{"10.0.0.0/24": [{"attrs": [{"type": 3, "nexthop": "bogus"}]}]}`, "gobgp",
			`attrs[0].nexthop: "bogus" is not an IP address`},
		{"frr no routes", `{"vrfId": 0}`, "frr", "$.routes: missing"},
		{"frr bad peer", `{"routes": {"10.0.0.0/24": [{"peerId": "x"}]}}`, "frr", `$.routes["10.0.0.0/24"][0]: peerId`},
		{"bird garbage", "Table master4:\nhello world\n", "bird", "in:2: expected a route line"},
		{"bird bad next hop", "10.0.0.0/24 unicast [n1 00:00:00]\n\tBGP.next_hop: nope\n", "bird", "in:2: BGP.next_hop"},
		{"mrt truncated", "\x60\x00\x00\x00\x00\x0d\x00\x01\x00\x00\x00\x40abc", "mrt", "body shorter than its length"},
		{"unknown format", "hello", "auto", "cannot tell the route format"},
		{"bad format name", "{}", "cisco", `unknown route format "cisco"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := read(t, tc.data, tc.format)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestEmptyDumpIsNoRoutes(t *testing.T) {
	n, f, err := read(t, "\n\n", "auto")
	if err != nil || n != 0 || f != "empty" {
		t.Fatalf("got %d routes, format %q, err %v", n, f, err)
	}
	for _, data := range []string{"{}", `{"routes": {}}`} {
		if n, _, err := read(t, data, "auto"); err != nil || n != 0 {
			t.Errorf("%s: got %d routes, err %v", data, n, err)
		}
	}
}

func TestDetect(t *testing.T) {
	cases := map[string]string{
		`{"10.0.0.0/24":[]}`:                                          "gobgp",
		"{\n \"vrfId\": 0,\n \"routes\": {}}":                         "frr",
		"Table master4:\n10.0.0.0/24 unicast [x]\n":                   "bird",
		"10.0.0.0/24          unicast [node1 10:00:00.000] * (100)\n": "bird",
		"\x60\x00\x00\x00\x00\x0d\x00\x01\x00\x00\x00\x10":            "mrt",
	}
	for in, want := range cases {
		if got := Detect([]byte(in)); got != want {
			t.Errorf("Detect(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGzipIsRead(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(`{"10.0.0.0/24":[{"nlri":{"prefix":"10.0.0.0/24"},"attrs":[{"type":3,"nexthop":"10.0.0.1"}]}]}`)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rib.json.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	rs, f, err := ReadFile(path, "auto")
	if err != nil || f != "gobgp" || len(rs) != 1 || rs[0].NextHop.String() != "10.0.0.1" {
		t.Fatalf("got %v %q %v", rs, f, err)
	}
}

// TestUnreadableInputIsAnError: a directory (or any input that cannot be read)
// is an error naming the OS's reason, never an empty dump.
func TestUnreadableInputIsAnError(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"auto", "gobgp", "frr", "bird", "mrt"} {
		_, _, err := ReadFile(dir, format)
		if err == nil || !strings.Contains(err.Error(), "is a directory") || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: err %v, want the path and \"is a directory\"", format, err)
		}
	}
}

func TestReadStream(t *testing.T) {
	data := `{"10.0.0.0/24":[{"nlri":{"prefix":"10.0.0.0/24"},"attrs":[{"type":3,"nexthop":"10.0.0.1"}]}]}`
	rs, f, err := ReadStream("-", strings.NewReader(data), "auto")
	if err != nil || f != "gobgp" || len(rs) != 1 {
		t.Fatalf("got %v %q %v", rs, f, err)
	}
}

// TestGoBGPv4JSON reads what GoBGP v4.8.0's gobgp prints (testdata/gobgp-v4:
// gobgpd collector.toml fed by gobgpd speaker.toml on 127.0.0.1, the speaker
// given `gobgp global rib add 10.244.1.0/24 nexthop 10.0.0.11 community
// 65010:100` and `gobgp global rib add -a ipv6 fd00:10:244:1::/64 nexthop
// fd00::11`, then on the collector `gobgp global rib [-a ipv6] -j` and
// `gobgp neighbor 127.0.1.11 adj-in -j`),
// whose peer fields are named peer-address and peer-id (v3: neighbor-ip and
// source-id).
func TestGoBGPv4JSON(t *testing.T) {
	for file, want := range map[string]string{
		"rib.json":   "10.244.1.0/24 nh 10.0.0.11 peer 127.0.1.11 id 127.0.1.11 path [65010] [65010:100]",
		"rib6.json":  "fd00:10:244:1::/64 nh fd00::11 peer 127.0.1.11 id 127.0.1.11 path [65010] []",
		"adjin.json": "10.244.1.0/24 nh 10.0.0.11 peer 127.0.1.11 id 127.0.1.11 path [65010] [65010:100]",
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "gobgp-v4", file))
		if err != nil {
			t.Fatal(err)
		}
		rs, format, err := Read(file, bufio.NewReader(bytes.NewReader(b)), "auto")
		if err != nil || format != "gobgp" || len(rs) != 1 {
			t.Fatalf("%s: %d routes, format %q, err %v", file, len(rs), format, err)
		}
		r := rs[0]
		got := fmt.Sprintf("%s nh %s peer %s id %s path %v %v", r.Prefix, r.NextHop, r.Peer, r.RouterID, r.ASPath, r.Communities)
		if got != want {
			t.Errorf("%s: %s, want %s", file, got, want)
		}
	}
}
