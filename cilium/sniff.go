package cilium

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// What a cluster file that is not kubectl's -o json/yaml output is, said in
// routewarden's words with the command that gives the right one.

// clusterCommand is what check and validate-config read.
const clusterCommand = "kubectl get nodes,ciliumnodes,ciliumpodippools,ciliumloadbalancerippools -o yaml"

// kubectlTable is the header of `kubectl get` without -o: NAME and upper-case
// columns set apart by two spaces or more.
var kubectlTable = regexp.MustCompile(`^(NAMESPACE\s{2,})?NAME(\s{2,}[A-Z][A-Z0-9-]*(\([A-Z]+\))?)+\s*$`)

// sniffCluster names what a file that cannot be kubectl -o json/yaml output
// is: a kubectl table, FRR's or BIRD's text, JSON cut short. nil when it may be.
func sniffCluster(file string, data []byte) error {
	first, _, _ := bytes.Cut(bytes.TrimLeft(data, " \t\r\n"), []byte("\n"))
	first = bytes.TrimRight(first, "\r")
	switch {
	case kubectlTable.Match(first):
		return fmt.Errorf("%s: this is a kubectl table (kubectl get without -o; its header is %q), which does not "+
			"hold the objects' fields: run it with -o yaml (or -o json), e.g. %s", file, truncate(string(first), 60),
			clusterCommand)
	case bytes.HasPrefix(first, []byte("BGP table version")) || bytes.HasPrefix(first, []byte("BIRD ")):
		return fmt.Errorf("%s: this is a router's route table, not cluster objects: give it as --routes, and as "+
			"--cluster what %s prints", file, clusterCommand)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		return jsonCutShort(file, data)
	}
	return nil
}

// jsonCutShort says where JSON that does not parse goes wrong, or ends early.
func jsonCutShort(file string, data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if err == nil || !errors.As(err, &se) {
		return nil
	}
	if strings.Contains(se.Error(), "unexpected end of JSON input") {
		line := bytes.Count(data, []byte("\n")) + 1
		if bytes.HasSuffix(data, []byte("\n")) {
			line--
		}
		return fmt.Errorf("%s:%d: the JSON ends in the middle of an object (after %d bytes, on its last line): the "+
			"file was cut short; take it again (kubectl get … -o json > file)", file, line, len(data))
	}
	return fmt.Errorf("%s:%d: not valid JSON at byte %d: %s", file, bytes.Count(data[:min(int(se.Offset), len(data))],
		[]byte("\n"))+1, se.Offset, se.Error())
}

// yamlError puts yaml.v3's "yaml: line 45: …" in routewarden's words: file:line: what.
func yamlError(file string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, after, ok := strings.Cut(rest, ": "); ok {
			if _, err := strconv.Atoi(n); err == nil {
				return fmt.Errorf("%s:%s: not valid YAML or JSON: %s (expected kubectl get -o yaml or -o json output)",
					file, n, after)
			}
		}
	}
	return fmt.Errorf("%s: not valid YAML or JSON: %s (expected kubectl get -o yaml or -o json output)", file, msg)
}

// kubeconfig reports whether an object is a kubeconfig (kind Config with
// clusters, contexts or users).
func kubeconfig(tm TypeMeta, keys []string) bool {
	return tm.Kind == "Config" && (tm.APIVersion == "v1" || tm.APIVersion == "") &&
		(slices.Contains(keys, "clusters") || slices.Contains(keys, "contexts") || slices.Contains(keys, "users"))
}

func kubeconfigError(pos Pos) error {
	return fmt.Errorf("%s: this is a kubeconfig (how kubectl reaches a cluster), not the cluster's objects: give what "+
		"kubectl prints with it instead, e.g. %s > cluster.yaml", pos,
		strings.Replace(clusterCommand, "kubectl ", "kubectl --kubeconfig "+pos.File+" ", 1))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
