// Package cilium is routewarden's model of a Cilium cluster: the Kubernetes
// and Cilium objects it reads, decoded into one typed model, and what that
// model means for the validator (validator.Cluster). It is pure like the
// validator: no client-go, GoBGP, logger, HTTP or clock. kube/ feeds it the
// objects its informers deliver (as unstructured maps); check, roas and
// validate-config feed it kubectl output.
//
// Decoding: ReadFiles decodes kubectl output (JSON or YAML, Lists, single
// objects or multi-document files) into Objects, and
// Objects.DecodeUnstructured an object the API server sent
// (object_node.go: without going through its JSON text), with the same
// decoders (decode.go, types.go, service_types.go, bgp_types.go). Decoding
// keeps line numbers, so a bad field is reported as
// "cluster.yaml:42: CiliumNode node1: "10.244.1.0/33" is not a CIDR", and
// FieldPos finds the line of a field a lint problem names.
//
// Translation (Objects.Cluster): the IPAM mode and pod ranges (cluster.go),
// the nodes' ASNs from Cilium's BGP configuration (node_asn.go), which
// Services' VIPs Cilium announces (services.go, vip_announce.go), and what
// its advertisements tell each node to attach (advertised.go).
// validate-config's cross-checks (validator/lint) read the same objects: one
// model of each Cilium kind (bgp_types.go, selector.go), and the legacy
// speaker's bgp-config read once (legacy.go).
package cilium
