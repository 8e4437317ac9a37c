//go:build cilium_v1_19

package main

import daemonk8s "github.com/cilium/cilium/daemon/k8s"

// k8sTablesCell is the StateDB tables of Kubernetes objects: daemon/k8s until Cilium 1.19.
var k8sTablesCell = daemonk8s.TablesCell
