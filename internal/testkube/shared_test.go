package testkube

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { Main(m) }

// TestSharedIsReset: what one test creates in a shared control plane (a
// namespace with objects, cluster-scoped objects, a CR) is gone for the next
// test, which gets the same control plane back, and the namespace can be
// created again.
func TestSharedIsReset(t *testing.T) {
	c := NewestCilium(t)
	objects := strings.Join([]string{NodeManifest(1), CiliumNodeManifest(1),
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: shop}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cilium-config, namespace: kube-system}\n"}, "---\n")
	file := filepath.Join(t.TempDir(), "objects.yaml")
	if err := os.WriteFile(file, []byte(objects), 0o600); err != nil {
		t.Fatal(err)
	}
	var first *Env
	for i := range 2 {
		t.Run("lent", func(t *testing.T) {
			e := Shared(t, c)
			if i == 0 {
				first = e
			} else if e != first {
				t.Errorf("the second test got another control plane: %s, not %s", e.Dir, first.Dir)
			}
			e.Apply(t, file) // fails if any of them is still there
		})
	}
	e := Shared(t, c)
	start := time.Now()
	if err := e.reset(); err != nil {
		t.Fatal(err)
	}
	t.Logf("a reset with nothing to delete took %s", time.Since(start).Round(time.Millisecond))
	now, err := e.objects()
	if err != nil {
		t.Fatal(err)
	}
	for o := range now {
		if !e.baseline[o] {
			t.Errorf("%v is left after the reset", o)
		}
	}
}
