package alert

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// fakeSink records batches. Send blocks while gate is open-ended (until
// release or ctx ends) and fails while failing is set.
type fakeSink struct {
	name    string
	mu      sync.Mutex
	batches [][]Notice
	calls   int
	gate    chan struct{} // when not nil, Send waits for it to be closed
	started chan struct{} // receives once per Send call, if not nil
	failing atomic.Bool
}

func (s *fakeSink) Name() string { return s.name }

func (s *fakeSink) Send(ctx context.Context, ns []Notice) error {
	s.mu.Lock()
	s.calls++
	gate := s.gate
	s.mu.Unlock()
	if s.started != nil {
		s.started <- struct{}{}
	}
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if s.failing.Load() {
		return errors.New("sink down")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches = append(s.batches, ns)
	return nil
}

func (s *fakeSink) received() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]string, len(s.batches))
	for i, b := range s.batches {
		for _, n := range b {
			status := "firing"
			if n.Resolved() {
				status = "resolved"
			}
			out[i] = append(out[i], status+" "+n.Labels["prefix"])
		}
	}
	return out
}

func TestDispatcherQueueDropsOldest(t *testing.T) {
	sink := &fakeSink{name: "slow:9093", gate: make(chan struct{}), started: make(chan struct{}, 10)}
	reg := prometheus.NewRegistry()
	d, _ := runDispatcher(t, DispatcherConfig{QueueSize: 2, ResendInterval: time.Hour}, []Sink{sink}, reg)

	d.Publish([]Alert{testAlert(1)})
	<-sink.started // Batch 1 is being sent; the next ones queue up behind it.
	for i := 2; i <= 5; i++ {
		var firing []Alert
		for j := 1; j <= i; j++ {
			firing = append(firing, testAlert(j))
		}
		d.Publish(firing)
	}
	labels := map[string]string{"sink": "slow:9093"}
	if got := metricValue(t, reg, "routewarden_alert_queue_dropped_total", labels); got != 2 {
		t.Errorf("dropped %v batches, want 2", got)
	}
	if got := metricValue(t, reg, "routewarden_alert_queue_length", labels); got != 2 {
		t.Errorf("queue length %v, want 2", got)
	}
	close(sink.gate)
	want := [][]string{{"firing 10.0.1.0/24"}, {"firing 10.0.4.0/24"}, {"firing 10.0.5.0/24"}}
	eventually(t, "the first batch and the two newest delivered", func() error {
		if got := sink.received(); !slices.EqualFunc(got, want, slices.Equal) {
			return fmt.Errorf("received %q, want %q", got, want)
		}
		return nil
	})
	success := map[string]string{"sink": "slow:9093", "result": "success"}
	eventually(t, "metrics settle", func() error {
		l := metricValue(t, reg, "routewarden_alert_queue_length", labels)
		s := metricValue(t, reg, "routewarden_alert_deliveries_total", success)
		if l != 0 || s != 3 {
			return fmt.Errorf("queue length %v, %v successful deliveries; want 0 and 3", l, s)
		}
		return nil
	})
	if got := metricValue(t, reg, "routewarden_alerts_firing", nil); got != 5 {
		t.Errorf("routewarden_alerts_firing = %v, want 5", got)
	}
}

// TestDispatcherSinkDownDoesNotDelayOthers has one sink hang and another fail:
// the healthy one still gets every change, and the failing one gets the whole
// state once it recovers, in one batch, rather than a replay of the changes.
func TestDispatcherSinkDownDoesNotDelayOthers(t *testing.T) {
	hung := &fakeSink{name: "hung:9093", gate: make(chan struct{})}
	failing := &fakeSink{name: "failing:9093"}
	failing.failing.Store(true)
	healthy := &fakeSink{name: "healthy:9093"}
	reg := prometheus.NewRegistry()
	cfg := DispatcherConfig{ResendInterval: time.Hour, RetryMin: time.Millisecond, RetryMax: 10 * time.Millisecond}
	d, _ := runDispatcher(t, cfg, []Sink{hung, failing, healthy}, reg)

	d.Publish([]Alert{testAlert(1), testAlert(2)})
	d.Publish([]Alert{testAlert(2)})
	want := [][]string{{"firing 10.0.1.0/24", "firing 10.0.2.0/24"}, {"resolved 10.0.1.0/24"}}
	eventually(t, "the healthy sink has both changes", func() error {
		if got := healthy.received(); !slices.EqualFunc(got, want, slices.Equal) {
			return fmt.Errorf("received %q, want %q", got, want)
		}
		return nil
	})
	eventually(t, "the failing sink is retried", func() error {
		if n := metricValue(t, reg, "routewarden_alert_deliveries_total",
			map[string]string{"sink": "failing:9093", "result": "error"}); n < 3 {
			return fmt.Errorf("%v failed deliveries", n)
		}
		return nil
	})
	failing.failing.Store(false)
	// The queued changes and the state coalesce: 1 is not sent firing again.
	want = [][]string{{"resolved 10.0.1.0/24", "firing 10.0.2.0/24"}}
	eventually(t, "the recovered sink has the whole state, once", func() error {
		if got := failing.received(); !slices.EqualFunc(got, want, slices.Equal) {
			return fmt.Errorf("received %q, want %q", got, want)
		}
		return nil
	})
}

// TestDispatcherResend checks that firing and recently resolved alerts are
// sent again every ResendInterval, resolved ones only for ResolvedFor.
func TestDispatcherResend(t *testing.T) {
	var now atomic.Pointer[time.Time]
	now.Store(&t0)
	sink := &fakeSink{name: "am:9093"}
	cfg := DispatcherConfig{ResendInterval: 10 * time.Millisecond, ResolvedFor: 5 * time.Minute,
		Now: func() time.Time { return *now.Load() }}
	d, _ := runDispatcher(t, cfg, []Sink{sink}, nil)

	d.Publish([]Alert{testAlert(1), testAlert(2)})
	d.Publish([]Alert{testAlert(1)})
	resent := func(want []string) func() error {
		return func() error {
			got := sink.received()
			if len(got) > 3 && slices.Equal(got[len(got)-1], want) && slices.Equal(got[len(got)-2], want) {
				return nil
			}
			return fmt.Errorf("last batches %q, want %q resent", got[max(0, len(got)-2):], want)
		}
	}
	eventually(t, "both resent, one resolved", resent([]string{"firing 10.0.1.0/24", "resolved 10.0.2.0/24"}))
	later := t0.Add(5 * time.Minute)
	now.Store(&later)
	eventually(t, "the resolved one no longer resent", resent([]string{"firing 10.0.1.0/24"}))
	if f := d.Firing(); len(f) != 1 || f[0].Labels["prefix"] != "10.0.1.0/24" || !f[0].StartsAt.Equal(t0) {
		t.Errorf("Firing() = %v", f)
	}
}

// TestDispatcherShutdown checks that Run returns nil promptly when cancelled
// while a sink hangs or is being retried, sending nothing resolved.
func TestDispatcherShutdown(t *testing.T) {
	hung := &fakeSink{name: "hung:9093", gate: make(chan struct{}), started: make(chan struct{}, 10)}
	failing := &fakeSink{name: "failing:9093", started: make(chan struct{}, 10)}
	failing.failing.Store(true)
	cfg := DispatcherConfig{RetryMin: time.Hour, RetryMax: time.Hour}
	d, err := NewDispatcher(cfg, []Sink{hung, failing}, zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- d.Run(ctx) }()
	d.Publish([]Alert{testAlert(1)})
	<-hung.started
	<-failing.started
	if err := d.Run(ctx); err == nil {
		t.Error("a second Run of the same Dispatcher succeeded")
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	for _, s := range []*fakeSink{hung, failing} {
		for _, b := range s.received() {
			for _, n := range b {
				if n != "firing 10.0.1.0/24" {
					t.Errorf("%s received %q on shutdown", s.name, n)
				}
			}
		}
	}
}

func TestNewDispatcherErrors(t *testing.T) {
	ok := &fakeSink{name: "am:9093"}
	tests := []struct {
		name  string
		cfg   DispatcherConfig
		sinks []Sink
		reg   func() prometheus.Registerer
	}{
		{name: "negative interval", cfg: DispatcherConfig{ResendInterval: -time.Second}, sinks: []Sink{ok}},
		{name: "negative queue", cfg: DispatcherConfig{QueueSize: -1}, sinks: []Sink{ok}},
		{name: "retry max below min", cfg: DispatcherConfig{RetryMin: time.Minute, RetryMax: time.Second}, sinks: []Sink{ok}},
		{name: "nil sink", sinks: []Sink{nil}},
		{name: "metrics already registered", sinks: []Sink{ok}, reg: func() prometheus.Registerer {
			reg := prometheus.NewRegistry()
			if _, err := NewDispatcher(DispatcherConfig{}, []Sink{ok}, zerolog.Nop(), reg); err != nil {
				panic(err)
			}
			return reg
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reg prometheus.Registerer
			if tt.reg != nil {
				reg = tt.reg()
			}
			if _, err := NewDispatcher(tt.cfg, tt.sinks, zerolog.Nop(), reg); err == nil {
				t.Error("NewDispatcher succeeded")
			}
		})
	}
}

// TestDispatcherRecoveryDoesNotReplay: while a sink fails, an alert fires
// and resolves. Once the sink is back it gets the state of now in one batch:
// that alert resolved, never firing (a receiver would page for it), and an
// alert whose resolution was dropped from the full queue is not sent firing.
func TestDispatcherRecoveryDoesNotReplay(t *testing.T) {
	sink := &fakeSink{name: "flaky:9093"}
	sink.failing.Store(true)
	reg := prometheus.NewRegistry()
	cfg := DispatcherConfig{ResendInterval: time.Hour, QueueSize: 1, RetryMin: time.Millisecond,
		RetryMax: 5 * time.Millisecond}
	d, _ := runDispatcher(t, cfg, []Sink{sink}, reg)
	d.Publish([]Alert{testAlert(1)})
	eventually(t, "the sink to fail", func() error {
		if metricValue(t, reg, "routewarden_alert_deliveries_total",
			map[string]string{"sink": "flaky:9093", "result": "error"}) < 1 {
			return errNotYet
		}
		return nil
	})
	d.Publish([]Alert{testAlert(1), testAlert(2)})
	d.Publish([]Alert{testAlert(1)})
	d.Publish([]Alert{testAlert(1), testAlert(3)})
	sink.failing.Store(false)
	want := [][]string{{"firing 10.0.1.0/24", "resolved 10.0.2.0/24", "firing 10.0.3.0/24"}}
	eventually(t, "the state of now, once", func() error {
		if got := sink.received(); !slices.EqualFunc(got, want, slices.Equal) {
			return fmt.Errorf("received %q, want %q", got, want)
		}
		return nil
	})
	time.Sleep(50 * time.Millisecond)
	if got := sink.received(); len(got) != 1 {
		t.Errorf("received %q after the state, want nothing more", got[1:])
	}
}
