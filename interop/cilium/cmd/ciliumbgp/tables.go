//go:build !cilium_v1_19

package main

import k8sTables "github.com/cilium/cilium/pkg/k8s/tables"

// k8sTablesCell is the StateDB tables of Kubernetes objects (Services, EndpointSlices, ...):
// pkg/k8s/tables from Cilium 1.20.
var k8sTablesCell = k8sTables.TablesCell
