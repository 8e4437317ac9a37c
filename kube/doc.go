// Package kube brings the cluster's truth into routewarden from a live API
// server, as the validator's model (validator.Cluster). It is the only
// package that imports client-go; what the objects mean is the pure Cilium
// model's (package cilium), which kube only feeds.
//
// Connect builds an Inventory. Its informers (informers.go, informer_set.go,
// vip_informers.go) watch, read-only, Nodes, the cilium-config ConfigMap (in
// Cilium's namespace), CiliumNodes, the pool CRDs (the newest version the API
// server serves; without them the inventory runs degraded), LoadBalancer
// Services, EndpointSlices and Cilium's BGP resources. A transform
// (transform.go) decodes each object, with cilium's decoders (the ones
// kubectl output goes through), before it enters their store, which keeps
// only that decoding (decodedObject, decoded_object.go). The informers list
// and watch through resumingClient (informer_resume.go, informer_retry.go),
// which tries again what failed while the API server was away, so that after
// an outage each watch resumes from where it was (a resource the API server
// no longer has the history of is listed again, once); each resource's feed
// (informer_feed.go) is stale from its break until its watch runs again and
// has caught up. Only a set whose watches do not resume is replaced by a new
// generation that lists everything. The probe loop (inventory_probe.go) says
// when the inventory can be trusted (Status), and deleted Nodes are
// remembered for a while (tombstones). Inventory.Cluster translates the
// decoded objects into a validator.Cluster once per change
// (cilium.Objects.Cluster).
package kube
