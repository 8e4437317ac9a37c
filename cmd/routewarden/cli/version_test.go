package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVersionStamped: a binary built with make build's and the Dockerfile's
// -X flags prints what they stamped, with the Go and GoBGP versions.
func TestVersionStamped(t *testing.T) {
	for _, file := range []string{"../../../Makefile", "../../../Dockerfile"} {
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
		"-X main.version=v1.2.3 -X main.commit=0123abcd -X main.date=2026-01-02T03:04:05Z", "..")
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

// TestVersionReadmeSample: docs/deployment.md's `routewarden version` sample is what
// a binary stamped with the chart's appVersion prints, the GoBGP version
// read from the build info (go.mod's), the Go version aside.
func TestVersionReadmeSample(t *testing.T) {
	chart, err := os.ReadFile("../../../deploy/helm/routewarden/Chart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^appVersion: "?([^"\n]+)"?$`).FindSubmatch(chart)
	if m == nil {
		t.Fatal("Chart.yaml has no appVersion")
	}
	appVersion := string(m[1])
	readme, err := os.ReadFile("../../../docs/deployment.md")
	if err != nil {
		t.Fatal(err)
	}
	sample := regexp.MustCompile("(?s)\\$ routewarden version\n(.*?)```").FindSubmatch(readme)
	if sample == nil {
		t.Fatal("docs/deployment.md has no `$ routewarden version` sample")
	}
	field := func(text, key string) string {
		m := regexp.MustCompile(`(?m)^\s*` + key + `\s+(\S+)`).FindStringSubmatch(text)
		if m == nil {
			return ""
		}
		return m[1]
	}
	want := string(sample[1])
	bin := filepath.Join(t.TempDir(), "routewarden")
	ldflags := fmt.Sprintf("-X main.version=%s -X main.commit=%s -X main.date=%s", appVersion, field(want, "commit"),
		field(want, "built"))
	if out, err := exec.Command("go", "build", "-o", bin, "-ldflags", ldflags, "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	if g := field(got, "go"); g != "" {
		got = strings.Replace(got, g, field(want, "go"), 1)
	}
	if got != want {
		t.Errorf("routewarden version prints\n%s\ndocs/deployment.md shows\n%s", got, want)
	}
}
