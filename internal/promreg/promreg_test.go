package promreg

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestRegister(t *testing.T) {
	newCounter := func(name string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: name})
	}
	tests := []struct {
		name      string
		taken     []string // registered before, by someone else
		register  []string
		wantErr   string
		wantAfter int // collectors gathered afterwards
	}{
		{name: "all new", register: []string{"a_total", "b_total"}, wantAfter: 2},
		{name: "second clashes: the first is taken back", taken: []string{"b_total"},
			register: []string{"a_total", "b_total"}, wantErr: "registering test metrics", wantAfter: 1},
		{name: "nothing", wantAfter: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewPedanticRegistry()
			for _, n := range tt.taken {
				c := newCounter(n)
				c.Inc()
				reg.MustRegister(c)
			}
			var cs []prometheus.Collector
			for _, n := range tt.register {
				c := newCounter(n)
				c.Inc()
				cs = append(cs, c)
			}
			err := Register(reg, "test", cs...)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("Register: %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Register error = %v, want one containing %q", err, tt.wantErr)
			}
			mfs, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			if len(mfs) != tt.wantAfter {
				t.Errorf("gathered %d families, want %d", len(mfs), tt.wantAfter)
			}
		})
	}
	if err := Register(nil, "test", newCounter("x_total")); err != nil {
		t.Errorf("nil registerer: %v", err)
	}
}
