package kube

import (
	"context"
	"errors"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// feedRetry is how soon a list or watch is tried again while the API server
// is away or starting; feedRetryMax bounds the wait after server errors.
const (
	feedRetry    = time.Second
	feedRetryMax = 8 * time.Second
)

// retryAfter tells whether a list or watch that failed with err (its tries-th
// failure in a row, from 0) is tried again by resumingClient, and after how
// long. A request that failed served nothing, so trying it again cannot go
// back in time. Not retried, but returned to client-go's reflector: what
// client-go answers by listing from another resource version (410 Gone, a
// resource version too large for the API server), and what does not pass
// by waiting (403, 400, ...).
func retryAfter(err error, tries int) (time.Duration, bool) {
	var wait time.Duration
	switch {
	case apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) || apierrors.IsResourceExpired(err) ||
		apierrors.IsGone(err):
		return 0, false
	case away(err):
		wait = feedRetry
	case apierrors.IsInternalError(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		utilnet.IsTimeout(err):
		wait = min(feedRetry<<min(tries, 3), feedRetryMax) // 1, 2, 4, 8 s
	default:
		return 0, false
	}
	if s, ok := apierrors.SuggestsClientDelay(err); ok {
		wait = max(wait, min(time.Duration(s)*time.Second, time.Minute))
	}
	return wait, true
}

// away reports whether err says the API server is away or starting: not
// reachable, its connection lost, answering 429 while its watch caches fill,
// 503, or 404 for a custom resource it does not serve yet.
func away(err error) bool {
	return utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) ||
		utilnet.IsHTTP2ConnectionLost(err) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsServiceUnavailable(err) || apierrors.IsNotFound(err)
}

// sleep waits d; false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
