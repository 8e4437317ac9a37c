package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/internal/yamlpos"
)

// Problem is one thing wrong with the configuration.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Key     string `json:"key"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	loc := p.File
	if p.Line > 0 {
		loc += ":" + strconv.Itoa(p.Line)
	}
	if loc == "" {
		loc = "(defaults and environment)"
	}
	return fmt.Sprintf("%s: %s: %s", loc, p.Key, p.Message)
}

// Problems is every problem found; as an error it lists them all.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return fmt.Sprintf("%d configuration problem(s):\n  %s", len(ps), strings.Join(lines, "\n  "))
}

// EnvPrefix prefixes environment overrides: ROUTEWARDEN_BGP_ASN overrides bgp.asn.
const EnvPrefix = "ROUTEWARDEN"

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// Load reads the file at path (none when empty), applies defaults and
// environment overrides, and validates the result. It returns the config and
// every problem; err is set only when the file cannot be read at all.
func Load(path string) (*Config, Problems, error) {
	v := viper.New()
	for _, m := range []map[string]any{defaults, rtrDefaults} {
		for k, d := range m {
			v.SetDefault(k, d)
		}
	}
	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	bindEnv(v, reflect.TypeOf(Config{}), "")
	var problems Problems
	var lines yamlpos.Lines
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("reading config: %w", err)
		}
		var fatal bool
		problems, lines, fatal = parseFile(path, data)
		if fatal {
			return nil, problems, nil
		}
		v.SetConfigType("yaml")
		if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
			return nil, append(problems, Problem{File: path, Key: "(file)", Message: err.Error()}), nil
		}
	}
	// Keys whose values had the wrong type are reported once, by parseFile.
	badKeys := map[string]bool{}
	for _, p := range problems {
		badKeys[p.Key] = true
	}
	cfg := &Config{}
	if err := v.Unmarshal(cfg); err != nil && len(problems) == 0 {
		return nil, Problems{{File: path, Key: "(environment " + EnvPrefix + "_*)", Message: err.Error()}}, nil
	}
	for _, p := range cfg.Validate() {
		if badKeys[p.Key] {
			continue
		}
		if path != "" && lines.Line(p.Key) > 0 {
			p.File, p.Line = path, lines.Line(p.Key)
		}
		problems = append(problems, p)
	}
	slices.SortStableFunc(problems, func(a, b Problem) int { return cmp.Compare(a.Line, b.Line) })
	return cfg, problems, nil
}

// parseFile checks the file's syntax, keys and value types, recording lines.
// fatal means the file could not be parsed at all.
func parseFile(path string, data []byte) (problems Problems, lines yamlpos.Lines, fatal bool) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return Problems{yamlProblem(path, "(syntax)", err.Error())}, nil, true
	}
	if len(root.Content) == 0 {
		return nil, nil, false
	}
	if root.Content[0].Kind != yaml.MappingNode {
		return Problems{{File: path, Line: root.Content[0].Line, Key: "(document)",
			Message: "expected a mapping of sections (cluster, rules, bgp, log)"}}, nil, true
	}
	lines = yamlpos.Index(&root)
	unknownKeys(&root, reflect.TypeOf(Config{}), "", func(key string, line int, msg string) {
		problems = append(problems, Problem{File: path, Line: line, Key: key, Message: msg})
	})
	var typed Config
	var te *yaml.TypeError
	if err := root.Decode(&typed); errors.As(err, &te) {
		for _, e := range te.Errors {
			p := yamlProblem(path, "(value)", e)
			p.Key = lines.KeyAt(p.Line)
			problems = append(problems, p)
		}
	} else if err != nil {
		problems = append(problems, yamlProblem(path, "(value)", err.Error()))
	}
	return problems, lines, false
}

var typeMismatch = regexp.MustCompile("^cannot unmarshal !!(\\w+) `(.*)` into (\\S+)$")

func yamlProblem(path, key, msg string) Problem {
	p := Problem{File: path, Key: key, Message: msg}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		p.Message = m[2]
	}
	if m := typeMismatch.FindStringSubmatch(p.Message); m != nil {
		p.Message = fmt.Sprintf("found %s %q, expected %s", yamlTypeNames[m[1]], m[2], goTypeNames(m[3]))
	}
	return p
}

var yamlTypeNames = map[string]string{"str": "the string", "int": "the number", "bool": "the boolean",
	"float": "the number", "map": "a mapping", "seq": "a list", "null": "nothing"}

func goTypeNames(t string) string {
	switch {
	case strings.HasPrefix(t, "uint") || strings.HasPrefix(t, "int"):
		return "a whole number"
	case t == "time.Duration":
		return "a duration such as 90s"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map"):
		return "a mapping"
	case t == "bool":
		return "true or false"
	}
	return t
}

// bindEnv binds every scalar key so ROUTEWARDEN_* overrides work for keys the
// file does not mention.
func bindEnv(v *viper.Viper, t reflect.Type, prefix string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key := yamlpos.Join(prefix, f.Tag.Get("mapstructure"))
		if f.Anonymous {
			bindEnv(v, f.Type, prefix)
			continue
		}
		switch f.Type.Kind() {
		case reflect.Struct:
			bindEnv(v, f.Type, key)
		case reflect.Map, reflect.Slice:
			if f.Type.Elem().Kind() == reflect.String {
				_ = v.BindEnv(key)
			}
		default:
			_ = v.BindEnv(key)
		}
	}
}
