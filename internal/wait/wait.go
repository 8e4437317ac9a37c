// Package wait awaits events in tests: a condition polled until it holds, or
// a value on a channel, until a generous deadline passes. Deadlines are for
// hung tests, not assertions about speed.
package wait

import (
	"errors"
	"testing"
	"time"
)

// The polling interval starts short, so a condition that holds a moment after
// the first check is seen at once, and backs off to maxInterval, so a slow
// condition (a list over an API, a control client run) is not hammered.
const (
	firstInterval = time.Millisecond
	maxInterval   = 20 * time.Millisecond
)

// For polls cond until it returns nil (every 1ms at first, backing off to
// every 20ms), and fails the test with its last error when timeout passes.
func For(t testing.TB, what string, timeout time.Duration, cond func() error) {
	t.Helper()
	Value(t, what, timeout, func() (struct{}, error) { return struct{}{}, cond() })
}

// Value polls get like For until it returns no error, and returns the value
// it returned then.
func Value[T any](t testing.TB, what string, timeout time.Duration, get func() (T, error)) T {
	t.Helper()
	deadline := time.Now().Add(timeout)
	interval := firstInterval
	for {
		v, err := get()
		if err == nil {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s: %v", timeout, what, err)
		}
		time.Sleep(interval)
		interval = min(2*interval, maxInterval)
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

// Recv waits for a value on ch, or for ch to be closed (the zero value then),
// and fails the test when timeout passes first.
func Recv[T any](t testing.TB, what string, timeout time.Duration, ch <-chan T) T {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("timed out after %s waiting for %s", timeout, what)
		var zero T
		return zero
	}
}
