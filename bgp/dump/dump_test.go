package dump

import (
	"bufio"
	"bytes"
	"compress/gzip"
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
	zw.Write([]byte(`{"10.0.0.0/24":[{"nlri":{"prefix":"10.0.0.0/24"},"attrs":[{"type":3,"nexthop":"10.0.0.1"}]}]}`))
	zw.Close()
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
