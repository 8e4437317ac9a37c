package config

import (
	"fmt"
	"math"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/routewarden/routewarden/internal/yamlpos"
)

// EnvPrefix prefixes environment overrides: ROUTEWARDEN_BGP_ASN overrides bgp.asn.
const EnvPrefix = "ROUTEWARDEN"

// Key is one configuration key that the environment can set: its path in the
// file and its variable. Keys is the one list both come from.
type Key struct {
	Path string // e.g. bgp.listenPort
	Env  string // e.g. ROUTEWARDEN_BGP_LISTEN_PORT
	// FileOnly keys cannot be set from the environment.
	FileOnly bool
	kind     reflect.Type
}

// Keys lists every key the environment can set (scalars and lists of
// strings), sorted, and the maps of strings (FileOnly: bound so viper keeps
// their dotted keys whole, but a variable cannot set them). Lists of
// neighbors and the rules are set in the file only.
func Keys() []Key {
	var out []Key
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := strings.Split(f.Tag.Get("yaml"), ",")[0]
			switch {
			case f.Anonymous:
				walk(f.Type, prefix)
			case f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(time.Duration(0)):
				walk(f.Type, yamlpos.Join(prefix, name))
			case f.Type.Kind() == reflect.Map && f.Type.Elem().Kind() != reflect.String,
				f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() != reflect.String:
			default:
				path := yamlpos.Join(prefix, name)
				out = append(out, Key{Path: path, Env: EnvName(path), kind: f.Type, FileOnly: f.Type.Kind() == reflect.Map})
			}
		}
	}
	walk(reflect.TypeOf(Config{}), "")
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// LegacyEnvName is the variable's name before words had underscores between
// them (ROUTEWARDEN_BGP_LISTENPORT, ROUTEWARDEN_BGP_ROUTERID): still read, so
// deployments that set it keep working, unless the new name is set too.
func LegacyEnvName(path string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(path, ".", "_"))
}

// EnvName is the variable of a key: bgp.listenPort is ROUTEWARDEN_BGP_LISTEN_PORT,
// kubernetes.tombstoneTTL is ROUTEWARDEN_KUBERNETES_TOMBSTONE_TTL.
func EnvName(path string) string {
	var b strings.Builder
	b.WriteString(EnvPrefix)
	for _, part := range strings.Split(path, ".") {
		b.WriteByte('_')
		rs := []rune(part)
		for i, r := range rs {
			if i > 0 && unicode.IsUpper(r) && unicode.IsLower(rs[i-1]) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToUpper(r))
		}
	}
	return b.String()
}

// Expected says what a key holds, with the range of a number.
func (k Key) Expected() string { return expected(k.Path, k.kind) }

// numberRanges are the ranges of numeric keys (list indices left out).
var numberRanges = map[string]string{
	"bgp.asn":                  "1–4294967295 (an AS number)",
	"bgp.neighbors.asn":        "1–4294967295 (an AS number)",
	"bgp.dynamicNeighbors.asn": "0–4294967295 (an AS number; 0 accepts any)",
	"bgp.listenPort":           "1–65535 (a TCP port)",
	"rtr.nodeASN":              "0–4294967295 (an AS number; 0: none)",
	"rtr.maxSessions":          "1 or more (sessions at once)",
}

// expected describes the value a key of type t takes, with its range.
func expected(path string, t reflect.Type) string {
	plain := stripIndices(path)
	switch {
	case numberRanges[plain] != "":
		return "a whole number " + numberRanges[plain]
	}
	return yamlpos.Describe(t)
}

func stripIndices(path string) string {
	for {
		i := strings.IndexByte(path, '[')
		j := strings.IndexByte(path, ']')
		if i < 0 || j < i {
			return path
		}
		path = path[:i] + path[j+1:]
	}
}

// parseEnv checks a variable's value the way the file's is checked.
func (k Key) parseEnv(value string) error {
	var err error
	switch k.kind.Kind() {
	case reflect.Map:
		return fmt.Errorf("%s is a mapping: set it in the config file", k.Path)
	case reflect.Uint32:
		var n uint64
		if n, err = strconv.ParseUint(strings.TrimSpace(value), 10, 32); err == nil && n == 0 &&
			strings.HasPrefix(numberRanges[k.Path], "1") {
			err = fmt.Errorf("out of range")
		}
	case reflect.Int:
		var n int64
		if n, err = strconv.ParseInt(strings.TrimSpace(value), 10, 64); err == nil && k.Path == "bgp.listenPort" &&
			(n < 1 || n > math.MaxUint16) {
			err = fmt.Errorf("out of range")
		}
	case reflect.Int64:
		_, err = time.ParseDuration(strings.TrimSpace(value))
	case reflect.Bool:
		_, err = strconv.ParseBool(strings.TrimSpace(value))
	case reflect.Float64:
		_, err = strconv.ParseFloat(strings.TrimSpace(value), 64)
	}
	if err != nil {
		return fmt.Errorf("found %q, expected %s", value, k.Expected())
	}
	return nil
}

// envProblems checks every ROUTEWARDEN_* variable: a value that does not
// parse, and a name that is not a key's but looks like one (such as
// ROUTEWARDEN_BGP_LISTENPORT). Other ROUTEWARDEN_* variables (tools') are left alone.
func envProblems(keys []Key) (Problems, map[string]string) {
	var ps Problems
	set := map[string]string{} // path → variable, for the values that apply
	byName := map[string]Key{}
	for _, k := range keys {
		byName[squash(k.Env)] = k
		if k.FileOnly {
			set[k.Path] = "" // bound, so that viper reads the map whole
		}
		name, v, ok := k.lookup()
		if !ok {
			continue
		}
		legacy := LegacyEnvName(k.Path)
		if lv, both := os.LookupEnv(legacy); both && name != legacy && lv != v {
			ps = append(ps, Problem{Env: name, Key: k.Path,
				Message: fmt.Sprintf("%q, but %s (its former name) says %q: unset one", v, legacy, lv)})
			continue
		}
		if err := k.parseEnv(v); err != nil {
			ps = append(ps, Problem{Env: name, Key: k.Path, Message: err.Error()})
			continue
		}
		set[k.Path] = name
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		k, ok := byName[squash(name)]
		if ok && name != k.Env && name != LegacyEnvName(k.Path) && strings.HasPrefix(name, EnvPrefix+"_") {
			ps = append(ps, Problem{Env: name, Key: k.Path,
				Message: fmt.Sprintf("not a routewarden variable: did you mean %s?", k.Env)})
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Env < ps[j].Env })
	return ps, set
}

// lookup finds the key's variable: its name, else its former name.
func (k Key) lookup() (name, value string, ok bool) {
	for _, name := range []string{k.Env, LegacyEnvName(k.Path)} {
		if v, ok := os.LookupEnv(name); ok {
			return name, v, true
		}
	}
	return "", "", false
}

func squash(s string) string { return strings.ReplaceAll(strings.ToUpper(s), "_", "") }
