// Package deploy holds routewarden's deployment artifacts and their tests: the
// Helm chart (helm/routewarden), the manifests rendered from it (manifests/),
// and the Cilium, FRR and Alertmanager examples (examples/). It has no Go code
// of its own; the tests lint and render the chart, apply every manifest to a
// real kube-apiserver, prove the RBAC is least privilege, and check the
// PrometheusRule with promtool.
package deploy
