package config

import (
	"cmp"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/internal/yamlpos"
)

// Problem is one thing wrong with the configuration: in a file (File, Line)
// or in an environment variable (Env); Key is the key either sets.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Env     string `json:"env,omitempty"`
	Key     string `json:"key"`
	Message string `json:"message"`
}

// Where is the problem's place: file:line, the variable, or the defaults.
func (p Problem) Where() string {
	switch {
	case p.Env != "":
		return "environment " + p.Env
	case p.File != "" && p.Line > 0:
		return p.File + ":" + strconv.Itoa(p.Line)
	case p.File != "":
		return p.File
	}
	return "(defaults)"
}

func (p Problem) String() string { return fmt.Sprintf("%s: %s: %s", p.Where(), p.Key, p.Message) }

// Problems is every problem found; as an error it lists them all.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return fmt.Sprintf("%d configuration problem(s):\n  %s", len(ps), strings.Join(lines, "\n  "))
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// Purpose is what the configuration is loaded for: check and validate-config
// without --config need no BGP side; run (and validate-config --config) do.
type Purpose int

// Purposes.
const (
	ForCheck Purpose = iota
	ForRun
)

// Load reads the file at path (none when empty), applies defaults and
// environment overrides (Keys), and validates the result for the purpose
// (ForCheck when none is given). It returns the config and every problem; err
// is set only when the file cannot be read at all.
func Load(path string, purpose ...Purpose) (*Config, Problems, error) {
	v := viper.New()
	for _, m := range []map[string]any{defaults, rtrDefaults} {
		for k, d := range m {
			v.SetDefault(k, d)
		}
	}
	problems, fromEnv := envProblems(Keys())
	for _, k := range Keys() {
		if name, ok := fromEnv[k.Path]; ok {
			_ = v.BindEnv(k.Path, cmp.Or(name, k.Env))
		}
	}
	var lines yamlpos.Lines
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("reading config: %w", err)
		}
		fileProblems, l, values, fatal := parseFile(path, data)
		problems, lines = append(problems, fileProblems...), l
		if fatal {
			return nil, problems, nil
		}
		// The values as the walk read them: a key given twice (reported) does
		// not keep viper from reading the others, and so from checking them.
		if err := v.MergeConfigMap(values); err != nil {
			problems = append(problems, Problem{File: path, Key: "(file)", Message: err.Error()})
			return nil, problems, nil
		}
	}
	// Keys whose values had the wrong type are reported once, by parseFile:
	// the checks of what they hold (their zero value) would only repeat it.
	var badKeys []string
	for _, p := range problems {
		badKeys = append(badKeys, p.Key)
	}
	cfg := &Config{}
	if err := v.Unmarshal(cfg); err != nil && len(problems) == 0 {
		return nil, Problems{{File: path, Key: "(environment " + EnvPrefix + "_*)", Message: err.Error()}}, nil
	}
	for _, p := range cfg.ValidateFor(append(purpose, ForCheck)[0]) {
		if under(p.Key, badKeys) {
			continue
		}
		if env := fromEnv[stripIndices(p.Key)]; env != "" {
			p.Env = env
		} else if path != "" {
			p.File, p.Line = path, lines.Line(p.Key)
		}
		problems = append(problems, p)
	}
	slices.SortStableFunc(problems, func(a, b Problem) int { return cmp.Compare(a.Line, b.Line) })
	return cfg, problems, nil
}

// parseFile checks the file's syntax, keys and value types, recording lines.
// fatal means the file could not be parsed at all.
// values are the file's keys and values (a key given twice: its last value).
func parseFile(path string, data []byte) (problems Problems, lines yamlpos.Lines, values map[string]any, fatal bool) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return Problems{yamlProblem(path, "(syntax)", err.Error())}, nil, nil, true
	}
	if len(root.Content) == 0 {
		return nil, nil, nil, false
	}
	if root.Content[0].Kind != yaml.MappingNode {
		return Problems{{File: path, Line: root.Content[0].Line, Key: "(document)",
			Message: "expected a mapping of sections (cluster, rules, bgp, log)"}}, nil, nil, true
	}
	lines = yamlpos.Index(&root)
	checkNode(&root, func(key string, line int, msg string) {
		problems = append(problems, Problem{File: path, Line: line, Key: key, Message: msg})
	})
	values, _ = nodeValue(root.Content[0]).(map[string]any)
	return problems, lines, values, false
}

func yamlProblem(path, key, msg string) Problem {
	p := Problem{File: path, Key: key, Message: msg}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		p.Message = m[2]
	}
	return p
}

// under tells whether key is one of keys or inside one.
func under(key string, keys []string) bool {
	for _, k := range keys {
		if key == k || strings.HasPrefix(key, k+".") || strings.HasPrefix(key, k+"[") {
			return true
		}
	}
	return false
}
