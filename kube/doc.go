// Package kube brings the cluster's truth into routewarden: it decodes kubectl
// output (JSON or YAML, Lists, single objects or multi-document files) into
// Objects, and translates them into the validator's Cluster model.
//
// Decoding keeps line numbers, so a bad field is reported as
// "cluster.yaml:42: CiliumNode node1: "10.244.1.0/33" is not a CIDR".
package kube
