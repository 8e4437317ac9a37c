// Package wait polls a condition in tests until it holds or a generous
// deadline passes. Deadlines are for hung tests, not assertions about speed.
package wait

import (
	"errors"
	"testing"
	"time"
)

// For polls cond every 20ms until it returns nil, and fails the test with its
// last error when timeout passes.
func For(t testing.TB, what string, timeout time.Duration, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s: %v", timeout, what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var errNotYet = errors.New("not yet")

// True polls a boolean condition, like For.
func True(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	For(t, what, timeout, func() error {
		if cond() {
			return nil
		}
		return errNotYet
	})
}
