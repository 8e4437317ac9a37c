package cilium

import (
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/routewarden/routewarden/internal/yamlpos"
)

// FieldPos locates a field of an object named "Kind name" (as validate-config
// names them), e.g. ("CiliumBGPClusterConfig tor", "spec.bgpInstances[0].peers").
// Fields of the legacy speaker's embedded config are written
// "config.yaml peers[0].peer-asn". It returns false when the object is unknown.
func (o *Objects) FieldPos(object, field string) (Pos, bool) {
	kind, name, _ := strings.Cut(object, " ")
	switch kind {
	case "CiliumBGPClusterConfig":
		return fieldPos(o.BGPClusterCfgs, name, field, func(c BGPClusterConfig) string { return c.Metadata.Name })
	case "CiliumBGPPeerConfig":
		return fieldPos(o.BGPPeerCfgs, name, field, func(c BGPPeerConfig) string { return c.Metadata.Name })
	case "CiliumBGPAdvertisement":
		return fieldPos(o.BGPAdverts, name, field, func(a BGPAdvertisement) string { return a.Metadata.Name })
	case "CiliumBGPPeeringPolicy":
		return fieldPos(o.BGPPeeringPols, name, field, func(c BGPPeeringPolicy) string { return c.Metadata.Name })
	case "ConfigMap":
		_, cmName, _ := strings.Cut(name, "/")
		cm := o.configMap(cmName)
		if cm == nil {
			return Pos{}, false
		}
		return configMapFieldPos(cm, field), true
	}
	return Pos{}, false
}

func fieldPos[T any](objs []Sourced[T], name, field string, nameOf func(T) string) (Pos, bool) {
	for _, s := range objs {
		if nameOf(s.Object) == name {
			p := s.Pos
			if l := s.Lines.Line(field); l > 0 {
				p.Line = l // yaml.v3 counts lines from the start of the file
			}
			return p, true
		}
	}
	return Pos{}, false
}

// configMapFieldPos maps "config.yaml peers[0]" into the block scalar of
// data.config.yaml, and "key" to data.key.
func configMapFieldPos(cm *Sourced[ConfigMap], field string) Pos {
	p := cm.Pos
	dataKey, inner, _ := strings.Cut(field, " ")
	keyLine := cm.Lines.Line("data." + dataKey)
	if keyLine == 0 {
		return p
	}
	p.Line = keyLine
	if inner == "" {
		return p
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte(cm.Object.Data[dataKey]), &doc) == nil {
		if l := yamlpos.Index(&doc).Line(inner); l > 0 {
			p.Line += l // the block scalar starts on the line after its key
		}
	}
	return p
}
