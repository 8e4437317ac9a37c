package kube

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestAPIFailureNamesTheCause(t *testing.T) {
	get := func(err error) error {
		return &url.Error{Op: "Get", URL: "https://api:6443/apis/cilium.io/v2", Err: err}
	}
	gr := schema.GroupResource{Group: "cilium.io", Resource: "ciliumnodes"}
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"refused", get(&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}), "connection refused: nothing listens"},
		{"dns", get(&net.DNSError{Name: "api.example.invalid", Err: "no such host"}),
			`the API server's host name "api.example.invalid" does not resolve (DNS)`},
		{"timeout", get(context.DeadlineExceeded), "did not answer in time"},
		{"401", apierrors.NewUnauthorized("Unauthorized"), "refused the credentials (401 Unauthorized)"},
		{"403", apierrors.NewForbidden(gr, "", errors.New("RBAC")), "forbids it (403 Forbidden)"},
		{"other", errors.New("boom"), "asking: boom"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := apiFailure("asking", tc.err)
			if !strings.Contains(got.Error(), tc.want) || !errors.Is(got, tc.err) {
				t.Errorf("%v, want it to contain %q and wrap %v", got, tc.want, fmt.Sprint(tc.err))
			}
		})
	}
}
