package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/validator"
)

// TestCheckHelpListsEveryRule: check --help names every rule of the catalogue,
// with its severity where check judges it and as run-only where it does not.
func TestCheckHelpListsEveryRule(t *testing.T) {
	var out bytes.Buffer
	if code := Execute(context.Background(), []string{"check", "--help"}, strings.NewReader(""), &out, &out); code != 0 {
		t.Fatalf("check --help: exit %d\n%s", code, &out)
	}
	help := out.String()
	_, runOnly, _ := strings.Cut(help, "Only routewarden run judges ")
	runOnly, _, _ = strings.Cut(runOnly, ":")
	for _, r := range validator.Catalogue() {
		switch want := "  " + string(r.ID) + " (" + r.Severity.String() + "): "; {
		case !r.RunsIn(validator.ModeCheck) && !strings.Contains(", "+runOnly+",", ", "+string(r.ID)+","):
			t.Errorf("check --help does not say that only run judges %s", r.ID)
		case r.RunsIn(validator.ModeCheck) && !strings.Contains(help, want):
			t.Errorf("check --help lacks %q", want)
		}
	}
}
