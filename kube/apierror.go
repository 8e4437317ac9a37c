package kube

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// apiFailure wraps an error from the API server with its cause in words an
// operator acts on: refused, unresolvable, untrusted, unauthenticated,
// forbidden or too slow. what says what was being done.
func apiFailure(what string, err error) error {
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var cause string
	switch {
	case apierrors.IsUnauthorized(err):
		cause = "the API server refused the credentials (401 Unauthorized): check the kubeconfig's user, " +
			"or the service account token"
	case apierrors.IsForbidden(err):
		cause = "the API server forbids it (403 Forbidden): routewarden's ClusterRole must allow get, list " +
			"and watch on it (the chart's RBAC does)"
	case errors.Is(err, syscall.ECONNREFUSED):
		cause = "connection refused: nothing listens at the API server's address (is the kubeconfig's " +
			"server right, and is the API server up?)"
	case errors.As(err, &dns):
		cause = fmt.Sprintf("the API server's host name %q does not resolve (DNS)", dns.Name)
	case errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid):
		cause = "the API server's TLS certificate is not trusted: check the kubeconfig's " +
			"certificate-authority(-data) and server name"
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		cause = "the API server did not answer in time"
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
	if strings.TrimSpace(err.Error()) == "" { // a Status without a message: the cause says it all
		return fmt.Errorf("%s: %s%.0w", what, cause, err)
	}
	return fmt.Errorf("%s: %s: %w", what, cause, err)
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
