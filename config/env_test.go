package config

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestEnvNames(t *testing.T) {
	cases := map[string]string{
		"bgp.listenPort":              "ROUTEWARDEN_BGP_LISTEN_PORT",
		"bgp.asn":                     "ROUTEWARDEN_BGP_ASN",
		"kubernetes.tombstoneTTL":     "ROUTEWARDEN_KUBERNETES_TOMBSTONE_TTL",
		"alerting.externalURL":        "ROUTEWARDEN_ALERTING_EXTERNAL_URL",
		"bgp.gracefulRestart.enabled": "ROUTEWARDEN_BGP_GRACEFUL_RESTART_ENABLED",
	}
	for path, want := range cases {
		if got := EnvName(path); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", path, got, want)
		}
	}
	seen := map[string]bool{}
	for _, k := range Keys() {
		if seen[k.Env] {
			t.Errorf("two keys share %s", k.Env)
		}
		seen[k.Env] = true
	}
}

// TestEnvironmentProblems: a variable's problem names the variable (never a
// file line holding another value), says what was expected with the range,
// and comes once.
func TestEnvironmentProblems(t *testing.T) {
	dup := t.TempDir() + "/dup.yaml"
	if err := os.WriteFile(dup, []byte("bgp:\n  asn: 65000\n  asn: 65001\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, file string
		env        map[string]string
		want       []string
	}{
		{"listen port by its documented name", "testdata/good.yaml",
			map[string]string{"ROUTEWARDEN_BGP_LISTEN_PORT": "1180"}, nil},
		{"the former name still works (deployed charts set it)", "testdata/good.yaml",
			map[string]string{"ROUTEWARDEN_BGP_LISTENPORT": "1180"}, nil},
		{"the two names disagreeing", "testdata/good.yaml",
			map[string]string{"ROUTEWARDEN_BGP_LISTEN_PORT": "1180", "ROUTEWARDEN_BGP_LISTENPORT": "1181"},
			[]string{`environment ROUTEWARDEN_BGP_LISTEN_PORT: bgp.listenPort: "1180", but ROUTEWARDEN_BGP_LISTENPORT (its former name) says "1181": unset one`}},
		{"a near miss is not silently ignored", "testdata/good.yaml",
			map[string]string{"ROUTEWARDEN_BGP_LISTEN_PORT_": "1180"},
			[]string{"environment ROUTEWARDEN_BGP_LISTEN_PORT_: bgp.listenPort: not a routewarden variable: did you mean ROUTEWARDEN_BGP_LISTEN_PORT?"}},
		{"not a number", "testdata/good.yaml", map[string]string{"ROUTEWARDEN_BGP_ASN": "abc"},
			[]string{`environment ROUTEWARDEN_BGP_ASN: bgp.asn: found "abc", expected a whole number 1–4294967295 (an AS number)`}},
		{"out of range", "testdata/good.yaml", map[string]string{"ROUTEWARDEN_BGP_ASN": "4294967296"},
			[]string{`environment ROUTEWARDEN_BGP_ASN: bgp.asn: found "4294967296", expected a whole number 1–4294967295 (an AS number)`}},
		{"a valid value that fails validation is blamed on the variable", "testdata/good.yaml",
			map[string]string{"ROUTEWARDEN_BGP_ROUTER_ID": "2001:db8::1"},
			[]string{`environment ROUTEWARDEN_BGP_ROUTER_ID: bgp.routerId: "2001:db8::1" is not an IPv4 address`}},
		{"a duplicate key once", dup, nil, []string{`dup.yaml:3: bgp.asn: mapping key "asn" already defined at line 2`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			cfg, problems, err := Load(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != len(tc.want) {
				t.Fatalf("problems %v, want %d: %q", problems, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(problems[i].String(), w) {
					t.Errorf("problem %q, want it to contain %q", problems[i], w)
				}
			}
			if tc.want == nil && strings.Contains(tc.name, "name") && cfg.BGP.ListenPort != 1180 {
				t.Errorf("listen port %d, want 1180 from the environment", cfg.BGP.ListenPort)
			}
		})
	}
}

// TestForRun: what run cannot start without is a problem of the file, all at once.
func TestForRun(t *testing.T) {
	empty := t.TempDir() + "/empty.yaml"
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, problems, _ := Load(empty); len(problems) != 0 {
		t.Errorf("for check, an empty file is fine: %v", problems)
	}
	_, problems, _ := Load(empty, ForRun)
	var keys []string
	for _, p := range problems {
		keys = append(keys, p.Key)
		if p.File != empty {
			t.Errorf("problem %v does not name the file", p)
		}
	}
	if strings.Join(keys, " ") != "bgp.asn bgp.routerId bgp.dynamicNeighbors" {
		t.Errorf("problems %v, want bgp.asn, bgp.routerId and bgp.dynamicNeighbors", problems)
	}
	if _, problems, _ := Load("testdata/good.yaml", ForRun); len(problems) != 0 {
		t.Errorf("good.yaml for run: %v", problems)
	}
}

func TestEnvironmentList(t *testing.T) {
	t.Setenv("ROUTEWARDEN_CLUSTER_POD_RANGES", "10.1.0.0/16,10.2.0.0/16")
	cfg, problems, err := Load("testdata/good.yaml")
	if err != nil || len(problems) > 0 || len(cfg.Cluster.PodRanges) != 2 {
		t.Fatalf("err %v, problems %v, pod ranges %q", err, problems, cfg.Cluster.PodRanges)
	}
}

// TestOneNamePerKey: the file's key (yaml tag), viper's (mapstructure tag) and
// the variable all come from one name per field.
func TestOneNamePerKey(t *testing.T) {
	var walk func(rt reflect.Type, path string)
	walk = func(rt reflect.Type, path string) {
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice || rt.Kind() == reflect.Map {
			rt = rt.Elem()
		}
		if rt.Kind() != reflect.Struct || rt.PkgPath() != reflect.TypeOf(Config{}).PkgPath() {
			return
		}
		for i := 0; i < rt.NumField(); i++ {
			f := rt.Field(i)
			y, m := f.Tag.Get("yaml"), f.Tag.Get("mapstructure")
			if f.Anonymous {
				if y != ",inline" || m != ",squash" {
					t.Errorf("%s.%s: embedded with yaml %q, mapstructure %q", path, f.Name, y, m)
				}
			} else if y == "" || y != m {
				t.Errorf("%s.%s: yaml %q and mapstructure %q differ", path, f.Name, y, m)
			}
			walk(f.Type, path+"."+f.Name)
		}
	}
	walk(reflect.TypeOf(Config{}), "Config")
}
