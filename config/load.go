package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"
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
	for k, d := range defaults {
		v.SetDefault(k, d)
	}
	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	bindEnv(v, reflect.TypeOf(Config{}), "")
	var problems Problems
	lines := lineIndex{}
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("reading config: %w", err)
		}
		problems = parseFile(path, data, lines)
		if len(problems) > 0 {
			return nil, problems, nil
		}
		v.SetConfigType("yaml")
		if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
			return nil, Problems{{File: path, Key: "(file)", Message: err.Error()}}, nil
		}
	}
	cfg := &Config{}
	if err := v.Unmarshal(cfg); err != nil {
		return nil, Problems{{File: path, Key: "(environment " + EnvPrefix + "_*)", Message: err.Error()}}, nil
	}
	for _, p := range cfg.Validate() {
		if path != "" && lines.line(p.Key) > 0 {
			p.File, p.Line = path, lines.line(p.Key)
		}
		problems = append(problems, p)
	}
	return cfg, problems, nil
}

// parseFile checks the file's syntax, keys and value types, recording lines.
func parseFile(path string, data []byte, lines lineIndex) Problems {
	var problems Problems
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return Problems{yamlProblem(path, "(syntax)", err.Error())}
	}
	if len(root.Content) == 0 {
		return nil
	}
	if root.Content[0].Kind != yaml.MappingNode {
		return Problems{{File: path, Line: root.Content[0].Line, Key: "(document)",
			Message: "expected a mapping of sections (cluster, rules, bgp, log)"}}
	}
	indexLines(&root, "", lines)
	unknownKeys(&root, reflect.TypeOf(Config{}), "", func(key string, line int, msg string) {
		problems = append(problems, Problem{File: path, Line: line, Key: key, Message: msg})
	})
	var typed Config
	var te *yaml.TypeError
	if err := root.Decode(&typed); errors.As(err, &te) {
		for _, e := range te.Errors {
			problems = append(problems, yamlProblem(path, "(value)", e))
		}
	} else if err != nil {
		problems = append(problems, yamlProblem(path, "(value)", err.Error()))
	}
	return problems
}

func yamlProblem(path, key, msg string) Problem {
	p := Problem{File: path, Key: key, Message: msg}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		p.Message = m[2]
	}
	return p
}

// bindEnv binds every scalar key so ROUTEWARDEN_* overrides work for keys the
// file does not mention.
func bindEnv(v *viper.Viper, t reflect.Type, prefix string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key := join(prefix, f.Tag.Get("mapstructure"))
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
