package kube

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestRetryAfter: what resumingClient tries again itself, and when; what it
// leaves to client-go's reflector.
func TestRetryAfter(t *testing.T) {
	dial := func(errno syscall.Errno) error {
		return fmt.Errorf("Get \"https://127.0.0.1:6443/api/v1/nodes\": %w",
			&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errno)})
	}
	tooLarge := apierrors.NewTimeoutError("Too large resource version: 240, current: 235", 1)
	tooLarge.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge}}
	crd := schema.GroupResource{Group: "cilium.io", Resource: "ciliumnodes"}
	for _, tc := range []struct {
		name  string
		err   error
		tries int
		want  time.Duration // 0: not retried
	}{
		{name: "connection refused", err: dial(syscall.ECONNREFUSED), want: time.Second},
		{name: "connection refused, long", err: dial(syscall.ECONNREFUSED), tries: 60, want: time.Second},
		{name: "host unreachable", err: dial(syscall.EHOSTUNREACH), want: time.Second},
		{name: "429 while the watch cache fills", err: apierrors.NewTooManyRequests("not ready", 3), want: 3 * time.Second},
		{name: "404: the CRD not served yet", err: apierrors.NewNotFound(crd, ""), want: time.Second},
		{name: "503", err: apierrors.NewServiceUnavailable("starting"), want: time.Second},
		{name: "500, first", err: apierrors.NewInternalError(errors.New("conversion webhook")), want: time.Second},
		{name: "500, third", err: apierrors.NewInternalError(errors.New("conversion webhook")), tries: 2, want: 4 * time.Second},
		{name: "500, tenth", err: apierrors.NewInternalError(errors.New("conversion webhook")), tries: 9, want: feedRetryMax},
		{name: "410: client-go lists again", err: apierrors.NewResourceExpired("too old resource version: 1 (2)")},
		{name: "too large resource version: client-go lists from the newest", err: tooLarge},
		{name: "403", err: apierrors.NewForbidden(crd, "", errors.New("RBAC"))},
		{name: "a bad request", err: apierrors.NewBadRequest("bad field selector")},
	} {
		got, again := retryAfter(tc.err, tc.tries)
		if again != (tc.want != 0) || got != tc.want {
			t.Errorf("%s: retried %v after %s, want %s (0: not retried)", tc.name, again, got, tc.want)
		}
	}
}
