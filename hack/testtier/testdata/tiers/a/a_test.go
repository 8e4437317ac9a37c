// Package a is testtier's fixture: tests the quick tier runs, skips, or
// skips a part of.
package a

import (
	"os"
	"testing"
)

func TestQuick(t *testing.T) {}

func TestSlow(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	if os.Getenv("TESTTIER_FAIL") != "" {
		t.Fatal("the slow test failed")
	}
}

func TestSub(t *testing.T) {
	t.Run("fast", func(t *testing.T) {})
	t.Run("slow", func(t *testing.T) {
		if testing.Short() {
			t.Skip("slow")
		}
	})
}
