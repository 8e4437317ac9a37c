package httpapi

import (
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// readmePath is the API's documentation, which shows answers.
const readmePath = "../docs/api.md"

// apiExample is a block of docs/api.md showing an answer: the marker names the request.
var apiExample = regexp.MustCompile("(?s)<!-- api-example: (\\S+) -->\n```json\n(.*?)```\n")

// TestREADMEShowsTheAPI: every answer docs/api.md shows is what the API answers
// (for the test sources); -update rewrites the blocks.
func TestREADMEShowsTheAPI(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New("127.0.0.1:0", testSources(true), prometheus.NewRegistry(), zerolog.Nop()).Handler())
	defer srv.Close()
	n := 0
	out := apiExample.ReplaceAllStringFunc(string(readme), func(block string) string {
		m := apiExample.FindStringSubmatch(block)
		n++
		code, body := get(t, srv.URL+m[1])
		if code != 200 {
			t.Errorf("docs/api.md shows %s, which answers %d: %s", m[1], code, body)
		}
		if body != m[2] && !*update {
			t.Errorf("docs/api.md shows for %s:\n%s\nthe API answers:\n%s(go test ./httpapi -run README -update)",
				m[1], m[2], body)
		}
		return strings.Replace(block, "```json\n"+m[2], "```json\n"+body, 1)
	})
	if n == 0 {
		t.Fatal("docs/api.md shows no API answer (<!-- api-example: PATH --> before a json block)")
	}
	if *update && out != string(readme) {
		if err := os.WriteFile(readmePath, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
