package cilium

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/internal/yamlpos"
)

// Pos is where an object was read: file and line.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// Sourced is a decoded object and where it was read.
type Sourced[T any] struct {
	Pos    Pos
	Object T
	// Lines locates the object's fields; kept for the objects validate-config reports on.
	Lines yamlpos.Lines
}

// Objects are the Kubernetes and Cilium objects read from kubectl output.
type Objects struct {
	Nodes          []Sourced[Node]
	CiliumNodes    []Sourced[CiliumNode]
	PodIPPools     []Sourced[CiliumPodIPPool]
	LBIPPools      []Sourced[CiliumLoadBalancerIPPool]
	ConfigMaps     []Sourced[ConfigMap]
	BGPClusterCfgs []Sourced[BGPClusterConfig]
	BGPPeerCfgs    []Sourced[BGPPeerConfig]
	BGPAdverts     []Sourced[BGPAdvertisement]
	BGPPeeringPols []Sourced[BGPPeeringPolicy]
	// BGPNodeOverrides are CiliumBGPNodeConfigOverrides (node_asn.go).
	BGPNodeOverrides []Sourced[BGPNodeConfigOverride]
	Services         []Sourced[Service]
	EndpointSlices   []Sourced[EndpointSlice]
	// ServicesRead says Services were given (even none of type LoadBalancer):
	// only then can the VIP rules judge.
	ServicesRead bool
	// Ignored counts objects of kinds routewarden does not read, by kind.
	Ignored map[string]int
	// CiliumNamespace is where cilium-config and bgp-config live; default kube-system.
	CiliumNamespace string
	// TypeProblems are fields whose values did not fit (decode_types.go).
	TypeProblems []TypeProblem
	lenient      bool
}

// ReadFiles decodes every file ("-" is standard input) into one Objects.
func ReadFiles(paths []string) (*Objects, error) { return readFiles(paths, &Objects{}) }

func readFiles(paths []string, o *Objects) (*Objects, error) {
	for _, p := range paths {
		var data []byte
		var err error
		if p == "-" {
			data, err = io.ReadAll(os.Stdin)
		} else {
			data, err = os.ReadFile(p)
		}
		if err != nil {
			return nil, fmt.Errorf("reading cluster file: %w", err)
		}
		if err := o.Decode(p, data); err != nil {
			return nil, err
		}
	}
	if err := o.nothingRead(paths); err != nil {
		return nil, err
	}
	return o, nil
}

// Decode adds the objects in data (JSON or YAML; a List, one object, or several
// YAML documents) read from the named file.
func (o *Objects) Decode(file string, data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return fmt.Errorf("%s: the file is empty (expected kubectl get -o json or -o yaml output)", file)
	}
	if err := sniffCluster(file, data); err != nil {
		return err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return o.typeError()
		}
		if err != nil {
			return yamlError(file, err)
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].Tag == "!!null" {
			continue
		}
		if err := o.decodeObject(file, doc.Content[0]); err != nil {
			return err
		}
	}
}

func (o *Objects) decodeObject(file string, n *yaml.Node) error {
	pos := Pos{File: file, Line: n.Line}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: expected a Kubernetes object (a mapping with apiVersion and kind), found a %s",
			pos, kindName(n))
	}
	var tm TypeMeta
	var meta struct {
		Metadata Meta        `yaml:"metadata"`
		Items    []yaml.Node `yaml:"items"`
	}
	_ = n.Decode(&tm)
	if err := n.Decode(&meta); err != nil {
		return fmt.Errorf("%s: %w", pos, err)
	}
	if tm.Kind == "" {
		return fmt.Errorf("%s: object has no kind (expected kubectl get -o json or -o yaml output)", pos)
	}
	if kubeconfig(tm, mappingKeys(n)) {
		return kubeconfigError(pos)
	}
	if tm.Kind == "List" || strings.HasSuffix(tm.Kind, "List") {
		for i := range meta.Items {
			if err := o.decodeObject(file, &meta.Items[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := checkKind(pos, tm, meta.Metadata.Name); err != nil {
		return err
	}
	what := tm.Kind + " " + meta.Metadata.Name
	wrap := func(err error) error {
		var fe *FieldError
		if errors.As(err, &fe) {
			return fmt.Errorf("%s:%d: %s: %s", file, fe.Line, what, fe.Msg)
		}
		return fmt.Errorf("%s: %s: %w", pos, what, err)
	}
	if meta.Metadata.Name == "" {
		return fmt.Errorf("%s: %s has no metadata.name", pos, tm.Kind)
	}
	var err error
	switch tm.Kind {
	case "Node":
		err = decodeInto(n, pos, &o.Nodes, false)
	case "CiliumNode":
		err = decodeInto(n, pos, &o.CiliumNodes, false)
	case "CiliumPodIPPool":
		err = decodeInto(n, pos, &o.PodIPPools, false)
	case "CiliumLoadBalancerIPPool":
		err = decodeInto(n, pos, &o.LBIPPools, false)
	case "ConfigMap":
		err = decodeInto(n, pos, &o.ConfigMaps, true)
	case "CiliumBGPClusterConfig":
		err = decodeInto(n, pos, &o.BGPClusterCfgs, true)
	case "CiliumBGPPeerConfig":
		err = decodeInto(n, pos, &o.BGPPeerCfgs, true)
	case "CiliumBGPAdvertisement":
		err = decodeInto(n, pos, &o.BGPAdverts, true)
	case "CiliumBGPPeeringPolicy":
		err = decodeInto(n, pos, &o.BGPPeeringPols, true)
	case "CiliumBGPNodeConfigOverride":
		err = decodeInto(n, pos, &o.BGPNodeOverrides, false)
	case "Service":
		o.ServicesRead = true
		err = decodeInto(n, pos, &o.Services, false)
	case "EndpointSlice":
		err = decodeEndpointSlice(n, pos, &o.EndpointSlices)
	default:
		if o.Ignored == nil {
			o.Ignored = map[string]int{}
		}
		o.Ignored[tm.Kind]++
	}
	if err != nil && !o.keepTypeErrors(err, what) {
		return wrap(err)
	}
	return nil
}

func decodeInto[T any](n *yaml.Node, pos Pos, into *[]Sourced[T], withLines bool) error {
	var v T
	var kept error // the fields that did not fit: the object is kept without them
	var te *yaml.TypeError
	if err := n.Decode(&v); errors.As(err, &te) {
		if kept = fieldTypeProblems(n, reflect.TypeOf(v), pos.File); kept == nil {
			return err
		}
	} else if err != nil {
		return err
	}
	s := Sourced[T]{Pos: pos, Object: v}
	if withLines {
		s.Lines = yamlpos.Index(n)
	}
	*into = append(*into, s)
	return kept
}

// mappingKeys are the keys of a mapping node.
func mappingKeys(n *yaml.Node) []string {
	keys := make([]string, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		keys = append(keys, n.Content[i].Value)
	}
	return keys
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return fmt.Sprintf("value %q", n.Value)
	}
	return "non-object"
}

// IgnoredSummary describes the ignored kinds: "3 Pod, 1 Service".
func (o *Objects) IgnoredSummary() string {
	kinds := make([]string, 0, len(o.Ignored))
	for k := range o.Ignored {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", o.Ignored[k], k)
	}
	return strings.Join(parts, ", ")
}
