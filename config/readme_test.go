package config

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeListsEveryVariable: docs/configuration.md names the variable of
// every key the environment can set, as Keys derives it.
func TestReadmeListsEveryVariable(t *testing.T) {
	data, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(data)
	for _, k := range Keys() {
		if k.FileOnly {
			continue
		}
		if row := "| `" + k.Path + "` | `" + k.Env + "` |"; !strings.Contains(section, row) {
			t.Errorf("docs/configuration.md lacks the row %s", row)
		}
	}
}
