package cilium

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/routewarden/routewarden/validator"
)

const multiDoc = `apiVersion: v1
kind: Node
metadata: {name: node1, labels: {rack: r1}}
spec: {podCIDRs: [10.244.0.0/24]}
status:
  addresses: [{type: InternalIP, address: 10.0.0.11}, {type: Hostname, address: node1}]
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: cilium.io/v2
kind: CiliumNode
metadata: {name: node1}
spec:
  addresses: [{type: InternalIP, ip: 10.0.0.11}]
  ipam: {podCIDRs: [10.244.1.0/24]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cilium-config, namespace: kube-system}
data: {ipam: cluster-pool, cluster-pool-ipv4-cidr: "10.244.0.0/16 10.245.0.0/16", enable-ipv6: "false",
  cluster-pool-ipv6-cidr: "fd00::/104"}
---
apiVersion: v1
kind: Pod
metadata: {name: ignored}
`

func TestDecodeMultiDocumentYAML(t *testing.T) {
	o := &Objects{}
	if err := o.Decode("c.yaml", []byte(multiDoc)); err != nil {
		t.Fatal(err)
	}
	c, err := o.Cluster(ClusterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Nodes) != 1 || !c.Nodes[0].Ready || c.Nodes[0].Addresses[0] != netip.MustParseAddr("10.0.0.11") ||
		len(c.Nodes[0].Addresses) != 1 || c.Nodes[0].Labels["rack"] != "r1" {
		t.Errorf("node: %+v", c.Nodes)
	}
	if len(c.CiliumNodes) != 1 || c.CiliumNodes[0].PodCIDRs[0].String() != "10.244.1.0/24" {
		t.Errorf("ciliumnode: %+v", c.CiliumNodes)
	}
	if c.IPAM.Mode != validator.IPAMClusterPool || c.IPAM.ModeSource != "cilium-config" || len(c.IPAM.PodRanges) != 2 {
		t.Errorf("ipam (IPv6 disabled, so its range is not used): %+v", c.IPAM)
	}
	if o.IgnoredSummary() != "1 Pod" {
		t.Errorf("ignored: %q", o.IgnoredSummary())
	}
}

func TestDecodeJSONList(t *testing.T) {
	list := `{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "cilium.io/v2", "kind": "CiliumLoadBalancerIPPool", "metadata": {"name": "vips"},
   "spec": {"blocks": [{"cidr": "172.16.0.0/24"}, {"start": "172.16.1.10", "stop": "172.16.1.20"}]}}
]}`
	o := &Objects{}
	if err := o.Decode("l.json", []byte(list)); err != nil {
		t.Fatal(err)
	}
	c, err := o.Cluster(ClusterOptions{IPAMMode: "kubernetes", ModeSource: "--ipam-mode"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range c.LBPools {
		got = append(got, p.String())
	}
	want := "172.16.0.0/24 172.16.1.10/31 172.16.1.12/30 172.16.1.16/30 172.16.1.20/32"
	if strings.Join(got, " ") != want {
		t.Errorf("LB pools %v, want %s", got, want)
	}
	if c.IPAM.Mode != validator.IPAMKubernetes || c.IPAM.ModeSource != "--ipam-mode" {
		t.Errorf("ipam %+v", c.IPAM)
	}
}

func TestDecodeErrorsSayWhereAndWhat(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"empty", "  \n", "c.yaml: the file is empty"},
		{"syntax", "kind: Node\n  metadata: [\n", "c.yaml:2: not valid YAML or JSON: mapping values are not allowed"},
		{"no kind", "metadata: {name: x}\n", "c.yaml:1: object has no kind"},
		{"scalar", "hello\n", "c.yaml:1: expected a Kubernetes object"},
		{"no name", "kind: Node\nmetadata: {}\n", "c.yaml:1: Node has no metadata.name"},
		{"bad CIDR in a list item", "kind: List\nitems:\n- kind: CiliumNode\n  metadata: {name: n1}\n  spec:\n    ipam:\n" +
			"      podCIDRs:\n      - 10.244.1.0/33\n", `c.yaml:8: CiliumNode n1: "10.244.1.0/33" is not a CIDR`},
		{"bad address", "kind: CiliumNode\nmetadata: {name: n1}\nspec:\n  addresses: [{ip: banana}]\n",
			`c.yaml:4: CiliumNode n1: "banana" is not an IP address`},
		{"wrong type", "kind: Node\nmetadata: {name: n1}\nspec: {podCIDRs: 5}\n",
			`c.yaml:3: Node n1: spec.podCIDRs: found the number "5", expected a list`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := (&Objects{}).Decode("c.yaml", []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestRangePrefixes(t *testing.T) {
	ps, err := RangePrefixes(netip.MustParseAddr("10.0.0.0"), netip.MustParseAddr("10.0.0.255"))
	if err != nil || len(ps) != 1 || ps[0].String() != "10.0.0.0/24" {
		t.Errorf("got %v %v", ps, err)
	}
	if _, err := RangePrefixes(netip.MustParseAddr("10.0.0.9"), netip.MustParseAddr("10.0.0.1")); err == nil {
		t.Error("a reversed range must be an error")
	}
	all, _ := RangePrefixes(netip.MustParseAddr("0.0.0.0"), netip.MustParseAddr("255.255.255.255"))
	if len(all) != 1 || all[0].Bits() != 0 {
		t.Errorf("whole space: %v", all)
	}
}
