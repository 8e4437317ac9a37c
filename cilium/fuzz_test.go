package cilium_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/routewarden/routewarden/cilium"
	"github.com/routewarden/routewarden/validator/lint"
)

// FuzzDecode: kubectl output and Cilium objects never make routewarden panic,
// whether check (Cluster) or validate-config (lint.Check) reads them.
func FuzzDecode(f *testing.F) {
	for _, glob := range []string{"../testdata/scenarios/*/cluster.json", "../testdata/scenarios/*/*.yaml",
		"../testdata/validate-config/*.yaml", "../deploy/examples/*.yaml"} {
		files, _ := filepath.Glob(glob)
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o := &cilium.Objects{}
		if err := o.Decode("fuzz", data); err != nil {
			return
		}
		_, _ = o.Cluster(cilium.ClusterOptions{})
		in := lint.Input{Cilium: o}
		var err error
		if in.Legacy, err = o.LegacySpeaker(); err == nil {
			lint.Check(in)
		}
	})
}
