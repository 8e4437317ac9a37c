package cli

import (
	"testing"

	"github.com/routewarden/routewarden/internal/testfile"
)

func writeFile(tb testing.TB, name, content string) string { return testfile.Temp(tb, name, content) }

func writeFixture(t *testing.T, dir, name, content string) { testfile.Fixture(t, dir, name, content) }
