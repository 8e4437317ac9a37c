package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad: no config file makes Load panic; a config without problems validates.
func FuzzLoad(f *testing.F) {
	for _, glob := range []string{"testdata/*.yaml", "../testdata/validate-config/routewarden.yaml",
		"../deploy/examples/routewarden.yaml"} {
		files, _ := filepath.Glob(glob)
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.yaml")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, problems, err := Load(path)
		if err == nil && len(problems) == 0 && cfg == nil {
			t.Fatal("no config and no problem")
		}
	})
}
