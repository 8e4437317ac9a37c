package alert

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/common/model"
)

// Sink is one destination for alerts.
type Sink interface {
	// Name identifies the sink in metrics and logs: its URL's host:port.
	Name() string
	// Send delivers one batch. The notices are shared with other sinks and
	// must not be modified. An error is retried with backoff unless it is a
	// *StatusError for a request the sink will never accept (see Retryable).
	Send(ctx context.Context, notices []Notice) error
}

// StatusError is a destination answering with a status other than 2xx.
type StatusError struct {
	URL        string
	StatusCode int
	// Body is the start of the response body, for the log.
	Body string
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Retryable reports whether sending the same request again may succeed:
// server errors, 408 and 429 are retried, other client errors are not.
func (e *StatusError) Retryable() bool {
	return e.StatusCode >= 500 || e.StatusCode == http.StatusRequestTimeout ||
		e.StatusCode == http.StatusTooManyRequests
}

func retryable(err error) bool {
	var se *StatusError
	return !errors.As(err, &se) || se.Retryable()
}

// AlertmanagerConfig configures delivery to one Alertmanager. For an HA
// pair, make one sink per Alertmanager: each gets its own queue and retries.
type AlertmanagerConfig struct {
	// URL is Alertmanager's base URL, such as http://alertmanager:9093 (a
	// path prefix such as /alertmanager is kept); alerts are posted to
	// {URL}/api/v2/alerts.
	URL string
	// Timeout bounds one request; default 10s.
	Timeout time.Duration
	TLS     TLSConfig
	// BasicAuth and BearerTokenFile are mutually exclusive. Secrets come
	// only from files, read again for every request.
	BasicAuth       BasicAuth
	BearerTokenFile string
}

// alertmanagerSink posts to Alertmanager's v2 API.
type alertmanagerSink struct {
	*httpClient
}

// NewAlertmanager returns a sink posting to Alertmanager's /api/v2/alerts.
func NewAlertmanager(cfg AlertmanagerConfig) (Sink, error) {
	c, err := newHTTPClient(clientConfig{
		endpoint: strings.TrimRight(cfg.URL, "/") + "/api/v2/alerts", timeout: cfg.Timeout, tls: cfg.TLS,
		basicAuth: cfg.BasicAuth, bearerTokenFile: cfg.BearerTokenFile,
	})
	if err != nil {
		return nil, fmt.Errorf("configuring Alertmanager %s: %w", redact(cfg.URL), err)
	}
	return &alertmanagerSink{c}, nil
}

// postableAlert is Alertmanager's v2 PostableAlert. A firing alert has no
// endsAt, so Alertmanager resolves it by itself after its resolve_timeout if
// routewarden stops re-sending it.
type postableAlert struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	StartsAt     time.Time         `json:"startsAt,omitzero"`
	EndsAt       time.Time         `json:"endsAt,omitzero"`
	GeneratorURL string            `json:"generatorURL,omitempty"`
}

// Send posts the batch as one request.
func (s *alertmanagerSink) Send(ctx context.Context, notices []Notice) error {
	if len(notices) == 0 {
		return nil
	}
	alerts := make([]postableAlert, len(notices))
	for i, n := range notices {
		alerts[i] = postableAlert{Labels: n.Labels, Annotations: n.Annotations, StartsAt: n.StartsAt,
			EndsAt: n.EndsAt, GeneratorURL: n.GeneratorURL}
	}
	body, err := json.Marshal(alerts)
	if err != nil {
		return fmt.Errorf("encoding alerts for %s: %w", s.display, err)
	}
	return s.post(ctx, body)
}

// WebhookConfig configures delivery to a receiver of Alertmanager's webhook
// payload (version 4), such as a chat bridge, without an Alertmanager.
type WebhookConfig struct {
	// URL is where the payload is posted, as is.
	URL string
	// Timeout bounds one request; default 10s.
	Timeout time.Duration
	TLS     TLSConfig
	// BasicAuth and BearerTokenFile are mutually exclusive. Secrets come
	// only from files, read again for every request.
	BasicAuth       BasicAuth
	BearerTokenFile string
	// Receiver is the payload's receiver; default "routewarden".
	Receiver string
	// ExternalURL is the payload's externalURL, a link back to routewarden.
	ExternalURL string
}

// webhookSink posts Alertmanager's webhook payload.
type webhookSink struct {
	*httpClient
	receiver, externalURL string
}

// NewWebhook returns a sink posting Alertmanager's webhook payload. Every
// batch is one notification: the webhook sees resends too.
func NewWebhook(cfg WebhookConfig) (Sink, error) {
	c, err := newHTTPClient(clientConfig{
		endpoint: cfg.URL, timeout: cfg.Timeout, tls: cfg.TLS, basicAuth: cfg.BasicAuth,
		bearerTokenFile: cfg.BearerTokenFile, secretPath: true,
	})
	if err != nil {
		return nil, fmt.Errorf("configuring webhook %s: %w", redactPath(cfg.URL), err)
	}
	return &webhookSink{httpClient: c, receiver: cmp.Or(cfg.Receiver, "routewarden"), externalURL: cfg.ExternalURL}, nil
}

// webhookMessage is Alertmanager's webhook payload, version 4.
type webhookMessage struct {
	Receiver          string            `json:"receiver"`
	Status            string            `json:"status"`
	Alerts            []webhookAlert    `json:"alerts"`
	GroupLabels       map[string]string `json:"groupLabels"`
	CommonLabels      map[string]string `json:"commonLabels"`
	CommonAnnotations map[string]string `json:"commonAnnotations"`
	ExternalURL       string            `json:"externalURL"`
	Version           string            `json:"version"`
	GroupKey          string            `json:"groupKey"`
	TruncatedAlerts   uint64            `json:"truncatedAlerts"`
}

type webhookAlert struct {
	Status       string            `json:"status"`
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL"`
	Fingerprint  string            `json:"fingerprint"`
}

const (
	statusFiring   = "firing"
	statusResolved = "resolved"
)

// webhookPayload builds the payload for a batch. Like Alertmanager, a firing
// alert has a zero endsAt. The whole batch is one group; it is grouped by
// cluster when every alert has the same one.
func webhookPayload(receiver, externalURL string, notices []Notice) webhookMessage {
	msg := webhookMessage{
		Receiver: receiver, Status: statusResolved, Alerts: make([]webhookAlert, len(notices)),
		GroupLabels: map[string]string{}, CommonLabels: map[string]string{}, CommonAnnotations: map[string]string{},
		ExternalURL: externalURL, Version: "4",
	}
	for i, n := range notices {
		status := statusResolved
		if !n.Resolved() {
			status, msg.Status = statusFiring, statusFiring
		}
		msg.Alerts[i] = webhookAlert{Status: status, Labels: nonNil(n.Labels), Annotations: nonNil(n.Annotations),
			StartsAt: n.StartsAt, EndsAt: n.EndsAt, GeneratorURL: n.GeneratorURL,
			Fingerprint: cmp.Or(n.Fingerprint, fingerprint(n.Labels))}
	}
	if len(notices) > 0 {
		msg.CommonLabels = common(notices, func(n Notice) map[string]string { return n.Labels })
		msg.CommonAnnotations = common(notices, func(n Notice) map[string]string { return n.Annotations })
		if c, ok := msg.CommonLabels["cluster"]; ok {
			msg.GroupLabels["cluster"] = c
		}
	}
	groupLabels := model.LabelSet{}
	for k, v := range msg.GroupLabels {
		groupLabels[model.LabelName(k)] = model.LabelValue(v)
	}
	msg.GroupKey = "{}:" + groupLabels.String()
	return msg
}

// common returns the entries every notice's map shares.
func common(notices []Notice, get func(Notice) map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range get(notices[0]) {
		out[k] = v
	}
	for _, n := range notices[1:] {
		m := get(n)
		for k, v := range out {
			if m[k] != v {
				delete(out, k)
			}
		}
	}
	return out
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// Send posts the batch as one notification.
func (s *webhookSink) Send(ctx context.Context, notices []Notice) error {
	if len(notices) == 0 {
		return nil
	}
	body, err := json.Marshal(webhookPayload(s.receiver, s.externalURL, notices))
	if err != nil {
		return fmt.Errorf("encoding webhook payload for %s: %w", s.display, err)
	}
	return s.post(ctx, body)
}

// redact hides credentials in a URL for error messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// redactPath shows only the scheme and host of a URL whose path or query may
// hold a secret.
func redactPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}
