package wait

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fatalTB records a Fatalf and ends the goroutine that called it, as testing does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// fails runs fn with a fatalTB on its own goroutine and returns what it failed with.
func fails(fn func(testing.TB)) string {
	tb := &fatalTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(tb)
	}()
	<-done
	return tb.msg
}

func TestValueReturnsWhatHeld(t *testing.T) {
	t.Parallel()
	n := 0
	got := Value(t, "the third call", time.Minute, func() (int, error) {
		n++
		if n < 3 {
			return 0, errors.New("not the third")
		}
		return n * 10, nil
	})
	if got != 30 || n != 3 {
		t.Errorf("Value = %d after %d calls, want 30 after 3", got, n)
	}
}

func TestForFailsWithTheLastError(t *testing.T) {
	t.Parallel()
	msg := fails(func(tb testing.TB) {
		For(tb, "never", 30*time.Millisecond, func() error { return errors.New("still not") })
	})
	if !strings.Contains(msg, "waiting for never: still not") {
		t.Errorf("failed with %q", msg)
	}
}

func TestRecv(t *testing.T) {
	t.Parallel()
	ch := make(chan int, 1)
	ch <- 7
	if got := Recv(t, "the value", time.Minute, ch); got != 7 {
		t.Errorf("Recv = %d, want 7", got)
	}
	close(ch)
	if got := Recv(t, "the close", time.Minute, ch); got != 0 {
		t.Errorf("Recv of a closed channel = %d, want 0", got)
	}
	msg := fails(func(tb testing.TB) { Recv(tb, "nothing", 10*time.Millisecond, make(chan struct{})) })
	if !strings.Contains(msg, "waiting for nothing") {
		t.Errorf("failed with %q", msg)
	}
}
