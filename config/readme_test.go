package config

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeListsEveryVariable: the README's Configuration section names the
// variable of every key the environment can set, as Keys derives it.
func TestReadmeListsEveryVariable(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(data), "## Configuration")
	for _, k := range Keys() {
		if k.FileOnly {
			continue
		}
		if row := "| `" + k.Path + "` | `" + k.Env + "` |"; !strings.Contains(section, row) {
			t.Errorf("README.md's Configuration section lacks the row %s", row)
		}
	}
}
