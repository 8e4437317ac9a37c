// Package b is testtier's fixture: a package the quick tier runs whole, with
// a test named as one of a's the rest must not run again.
package b

import (
	"os"
	"testing"
)

func TestSlow(t *testing.T) {
	if os.Getenv("TESTTIER_FAIL") != "" {
		t.Log("b's own words")
		t.Fatal("b failed")
	}
}
