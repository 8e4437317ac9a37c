package dump

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// seed adds the committed route dumps matching glob to the corpus.
func seed(f *testing.F, glob string) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*", glob))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
}

// fuzzFormat: no input may panic; a route that is read has a valid prefix.
func fuzzFormat(f *testing.F, format, glob string) {
	seed(f, glob)
	f.Fuzz(func(t *testing.T, data []byte) {
		routes, _, err := Read("fuzz", bufio.NewReader(bytes.NewReader(data)), format)
		if err != nil {
			return
		}
		for _, r := range routes {
			if !r.Prefix.IsValid() {
				t.Fatalf("route without a valid prefix: %+v", r)
			}
		}
	})
}

func FuzzGoBGP(f *testing.F) { fuzzFormat(f, "gobgp", "routes.gobgp*.json") }
func FuzzFRR(f *testing.F)   { fuzzFormat(f, "frr", "routes.frr*.json") }
func FuzzBIRD(f *testing.F)  { fuzzFormat(f, "bird", "routes.bird.txt") }
func FuzzMRT(f *testing.F)   { fuzzFormat(f, "mrt", "routes*.mrt") }
func FuzzAuto(f *testing.F)  { fuzzFormat(f, "auto", "routes.*") }
