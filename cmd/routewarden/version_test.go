package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionStamped: a binary built with make build's and the Dockerfile's
// -X flags prints what they stamped, with the Go and GoBGP versions.
func TestVersionStamped(t *testing.T) {
	for _, file := range []string{"../../Makefile", "../../Dockerfile"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{"main.version=", "main.commit=", "main.date="} {
			if !strings.Contains(string(data), "-X "+v) {
				t.Errorf("%s does not stamp -X %s", file, v)
			}
		}
	}
	bin := filepath.Join(t.TempDir(), "routewarden")
	build := exec.Command("go", "build", "-o", bin, "-ldflags",
		"-X main.version=v1.2.3 -X main.commit=0123abcd -X main.date=2026-01-02T03:04:05Z", ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "-o", "json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var v versionInfo
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if v.Version != "v1.2.3" || v.Commit != "0123abcd" || v.Date != "2026-01-02T03:04:05Z" ||
		!strings.HasPrefix(v.Go, "go1.") || !strings.HasPrefix(v.GoBGP, "v") {
		t.Errorf("version %+v", v)
	}
}
