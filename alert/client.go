package alert

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// TLSConfig configures TLS towards a destination.
type TLSConfig struct {
	// CAFile is a PEM bundle of the CAs to trust instead of the system's.
	CAFile string
	// CertFile and KeyFile are a client certificate and its key, read again
	// at every TLS handshake so that a renewed certificate is picked up.
	CertFile, KeyFile  string
	InsecureSkipVerify bool
	// ServerName overrides the name the server certificate is checked for.
	ServerName string
}

// BasicAuth is HTTP basic authentication. The password comes only from a file,
// read again for every request so that rotating it needs no restart.
type BasicAuth struct {
	Username     string
	PasswordFile string
}

// clientConfig is what AlertmanagerConfig and WebhookConfig have in common.
type clientConfig struct {
	endpoint        string
	timeout         time.Duration
	tls             TLSConfig
	basicAuth       BasicAuth
	bearerTokenFile string
	// secretPath marks a URL whose path may hold a secret (as webhook URLs
	// often do): errors and logs then show only its scheme and host.
	secretPath bool
}

// httpClient posts JSON to one endpoint with the configured TLS and
// credentials. Credentials never appear in its name, errors or logs.
type httpClient struct {
	url string
	// display is the URL as errors show it: without query, and without path
	// when the path may hold a secret.
	display   string
	name      string
	client    *http.Client
	transport *http.Transport
	basicAuth BasicAuth
	bearer    string
}

const defaultTimeout = 10 * time.Second

func newHTTPClient(c clientConfig) (*httpClient, error) {
	u, err := url.Parse(c.endpoint)
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // Without the URL, which may hold credentials.
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("parsing the URL: %w", err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("URL scheme %q: want http or https", u.Scheme)
	case u.Host == "":
		return nil, errors.New("the URL has no host")
	case u.User != nil:
		return nil, errors.New("the URL carries credentials: use basic auth with a password file")
	case c.basicAuth.PasswordFile != "" && c.basicAuth.Username == "":
		return nil, errors.New("basic auth has a password file but no username")
	case c.basicAuth.Username != "" && c.bearerTokenFile != "":
		return nil, errors.New("basic auth and a bearer token are mutually exclusive")
	case c.timeout < 0:
		return nil, fmt.Errorf("timeout %s is negative", c.timeout)
	}
	for _, f := range []string{c.basicAuth.PasswordFile, c.bearerTokenFile} {
		if f != "" {
			if _, err := readSecret(f); err != nil {
				return nil, err
			}
		}
	}
	tlsConf, err := newTLSConfig(c.tls)
	if err != nil {
		return nil, err
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:     tlsConf,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	shown := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	if c.secretPath && strings.Trim(u.Path, "/") != "" {
		shown.Path = "/..."
	}
	return &httpClient{
		url:       u.String(),
		display:   shown.String(),
		name:      net.JoinHostPort(u.Hostname(), port),
		client:    &http.Client{Transport: tr, Timeout: cmp.Or(c.timeout, defaultTimeout)},
		transport: tr,
		basicAuth: c.basicAuth,
		bearer:    c.bearerTokenFile,
	}, nil
}

func newTLSConfig(c TLSConfig) (*tls.Config, error) {
	conf := &tls.Config{InsecureSkipVerify: c.InsecureSkipVerify, ServerName: c.ServerName} //nolint:gosec // opt-in
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("reading CA file: %w", err)
		}
		conf.RootCAs = x509.NewCertPool()
		if !conf.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s holds no PEM certificate", c.CAFile)
		}
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		return nil, errors.New("TLS needs both a certificate file and a key file, or neither")
	}
	if c.CertFile != "" {
		if _, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile); err != nil {
			return nil, fmt.Errorf("loading client certificate: %w", err)
		}
		conf.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
			if err != nil {
				return nil, fmt.Errorf("loading client certificate: %w", err)
			}
			return &cert, nil
		}
	}
	return conf, nil
}

// readSecret reads a password or token file, trimming surrounding whitespace
// (such as the newline editors and `echo` leave). Its content is never logged.
func readSecret(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading secret file: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// post sends body as JSON; any status other than 2xx is a *StatusError.
func (c *httpClient) post(ctx context.Context, body []byte) error {
	if err := c.do(ctx, body); err != nil {
		return fmt.Errorf("posting alerts to %s: %w", c.display, err)
	}
	return nil
}

func (c *httpClient) do(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "routewarden")
	switch {
	case c.basicAuth.Username != "":
		var password string
		if c.basicAuth.PasswordFile != "" {
			if password, err = readSecret(c.basicAuth.PasswordFile); err != nil {
				return err
			}
		}
		req.SetBasicAuth(c.basicAuth.Username, password)
	case c.bearer != "":
		token, err := readSecret(c.bearer)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return ue.Err // It repeats the full URL, which post already shows redacted.
		}
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // Lets the connection be reused.
		return nil
	}
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return &StatusError{URL: c.display, StatusCode: resp.StatusCode, Body: strings.TrimSpace(string(snippet))}
}

// Name is the destination's host:port.
func (c *httpClient) Name() string { return c.name }

// CloseIdleConnections closes kept-alive connections; the Dispatcher calls it
// when it stops.
func (c *httpClient) CloseIdleConnections() { c.transport.CloseIdleConnections() }
