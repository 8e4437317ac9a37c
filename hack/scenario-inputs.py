#!/usr/bin/env python3
"""Writes the hand-authored inputs of every scenario under testdata/scenarios/.

Each scenario gets cluster.input.yaml (the objects applied to a real kube-apiserver by
hack/gen-cluster-fixtures.sh, which writes the kubectl output the tests read) and
routes.spec.yaml (what each node's BGP speaker announces; hack/gen-route-dumps.sh runs
real daemons and writes the route dumps the tests read). Nothing here is read by tests.
"""
import os
import yaml

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "scenarios")
NODE_ASN, COLLECTOR_ASN = 65010, 65000


def node(name, idx, pod_cidrs=(), ready=True, labels=None, v6=False):
    addrs = [{"type": "InternalIP", "address": f"10.0.0.{10 + idx}"}]
    if v6:
        addrs.append({"type": "InternalIP", "address": f"fd00::{10 + idx:x}"})
    addrs.append({"type": "Hostname", "address": name})
    spec = {}
    if pod_cidrs:
        spec = {"podCIDR": pod_cidrs[0], "podCIDRs": list(pod_cidrs)}
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                                              **(labels or {})}},
        "spec": spec,
        "status": {"addresses": addrs, "conditions": [{
            "type": "Ready", "status": "True" if ready else "False",
            "reason": "KubeletReady" if ready else "KubeletNotReady",
            "message": "kubelet is posting ready status" if ready else "container runtime network not ready",
            "lastHeartbeatTime": "2026-11-20T10:00:00Z", "lastTransitionTime": "2026-11-20T09:00:00Z"}]},
    }


def cilium_node(name, idx, pod_cidrs=(), pools=None, v6=False):
    addrs = [{"type": "InternalIP", "ip": f"10.0.0.{10 + idx}"},
             {"type": "CiliumInternalIP", "ip": f"10.200.{idx}.1"}]
    if v6:
        addrs.append({"type": "InternalIP", "ip": f"fd00::{10 + idx:x}"})
    ipam = {}
    if pod_cidrs:
        ipam["podCIDRs"] = list(pod_cidrs)
    if pools:
        ipam["pools"] = {"allocated": [{"pool": p, "cidrs": c} for p, c in pools]}
    return {"apiVersion": "cilium.io/v2", "kind": "CiliumNode", "metadata": {"name": name},
            "spec": {"addresses": addrs, "ipam": ipam}}


def cilium_config(ipam, v4=None, v6=None, mask4=24, mask6=64, extra=None):
    data = {"ipam": ipam, "enable-ipv4": "true", "enable-ipv6": "true" if v6 else "false",
            "cluster-name": "prod-eu1", "routing-mode": "native"}
    if v4:
        data["cluster-pool-ipv4-cidr"] = v4
        data["cluster-pool-ipv4-mask-size"] = str(mask4)
    if v6:
        data["cluster-pool-ipv6-cidr"] = v6
        data["cluster-pool-ipv6-mask-size"] = str(mask6)
    data.update(extra or {})
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cilium-config", "namespace": "kube-system"}, "data": data}


def lb_pool(name, cidr):
    return {"apiVersion": "cilium.io/v2", "kind": "CiliumLoadBalancerIPPool", "metadata": {"name": name},
            "spec": {"blocks": [{"cidr": cidr}]}}


def pod_pool(name, cidr, mask):
    return {"apiVersion": "cilium.io/v2alpha1", "kind": "CiliumPodIPPool", "metadata": {"name": name},
            "spec": {"ipv4": {"cidrs": [cidr], "maskSize": mask}}}


def speaker(name, idx, routes, ip=None):
    ip = ip or f"10.0.0.{10 + idx}"
    out = []
    for r in routes:
        if isinstance(r, str):
            r = {"prefix": r}
        r = dict(r)
        r.setdefault("nextHop", f"fd00::{10 + idx:x}" if ":" in r["prefix"] else ip)
        r.setdefault("communities", [f"{NODE_ASN}:100"])
        out.append(r)
    return {"name": name, "asn": NODE_ASN, "routerId": ip, "localAddress": f"127.0.1.{10 + idx}", "routes": out}


def write(name, objects, speakers, readme):
    d = os.path.join(ROOT, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "cluster.input.yaml"), "w") as f:
        f.write("# Applied to a real kube-apiserver by hack/gen-cluster-fixtures.sh.\n")
        yaml.safe_dump_all(objects, f, sort_keys=False)
    with open(os.path.join(d, "routes.spec.yaml"), "w") as f:
        f.write("# Announced by real BGP speakers to real collectors by hack/gen-route-dumps.sh.\n")
        yaml.safe_dump({"collector": {"asn": COLLECTOR_ASN, "routerId": "192.0.2.1"}, "speakers": speakers}, f,
                       sort_keys=False)
    with open(os.path.join(d, "README.md"), "w") as f:
        f.write(readme.strip() + "\n")


def v4(i):
    return f"10.244.{i}.0/24"


def v6(i):
    return f"fd00:10:244:{i:x}::/64"


def main():
    # healthy-20-nodes: dual stack, BGP control plane, one LB VIP announced by two nodes (ECMP).
    objs = [cilium_config("cluster-pool", "10.244.0.0/16", "fd00:10:244::/56",
                          extra={"enable-bgp-control-plane": "true"}), lb_pool("public-vips", "172.16.100.0/24")]
    sp = []
    for i in range(1, 21):
        n = f"node{i:02d}"
        objs += [node(n, i, labels={"topology.kubernetes.io/zone": f"rack{1 + (i - 1) // 10}"}, v6=True),
                 cilium_node(n, i, [v4(i), v6(i)], v6=True)]
        routes = [v4(i), v6(i)] + (["172.16.100.10/32"] if i <= 2 else [])
        sp.append(speaker(n, i, routes))
    write("healthy-20-nodes", objs, sp, """
# healthy-20-nodes
Twenty dual-stack nodes, cluster-pool IPAM, BGP control plane: every node announces exactly its CiliumNode
spec.ipam.podCIDRs, and node01 and node02 announce the LoadBalancer VIP 172.16.100.10/32 (ECMP).
Expected: zero findings.
""")

    # incident-cluster-pool: cilium/cilium#18852.
    objs = [cilium_config("cluster-pool", "10.244.0.0/16", extra={"bgp-announce-pod-cidr": "true"})]
    sp = []
    for i, (k8s, cil) in enumerate([(0, 1), (1, 2), (2, 3)], start=1):
        objs += [node(f"node{i}", i, [v4(k8s)]), cilium_node(f"node{i}", i, [v4(cil)])]
        sp.append(speaker(f"node{i}", i, [v4(k8s)]))
    sp.append(speaker("node4-decommissioned", 4, [v4(3)]))
    write("incident-cluster-pool", objs, sp, """
# incident-cluster-pool
The incident routewarden exists for (cilium/cilium#18852). IPAM is cluster-pool, but the legacy MetalLB-based
speaker announces Node.spec.podCIDRs, which kube-controller-manager allocated independently: every node announces
another node's CIDR. node4 was deleted, yet its machine still announces 10.244.3.0/24, which Cilium gave to node3:
node3's pods are unreachable.
""")

    # deleted-node-cidr-reused
    objs = [cilium_config("cluster-pool", "10.244.0.0/16", extra={"enable-bgp-control-plane": "true"})]
    sp = []
    for i, c in [(1, 1), (2, 2), (4, 3)]:
        objs += [node(f"node{i}", i), cilium_node(f"node{i}", i, [v4(c)])]
        sp.append(speaker(f"node{i}", i, [v4(c)]))
    sp.append(speaker("node3-deleted", 3, [v4(3)]))
    write("deleted-node-cidr-reused", objs, sp, """
# deleted-node-cidr-reused
node3 (10.0.0.13) was deleted from the cluster but its machine kept running its BGP speaker. The operator gave its
CIDR 10.244.3.0/24 to the new node4 (10.0.0.14). Both announce it: half the traffic for node4's pods goes to node3.
""")

    # kubernetes-ipam-drift
    objs = [cilium_config("kubernetes", extra={"enable-bgp-control-plane": "true"})]
    sp = []
    for i, (k8s, cil) in enumerate([(1, 1), (2, 7), (3, 3)], start=1):
        objs += [node(f"node{i}", i, [v4(k8s)]), cilium_node(f"node{i}", i, [v4(cil)])]
        sp.append(speaker(f"node{i}", i, [v4(cil)]))
    write("kubernetes-ipam-drift", objs, sp, """
# kubernetes-ipam-drift
IPAM mode kubernetes: the agent copies Node.spec.podCIDRs into the CiliumNode, so the two must match. node2's
CiliumNode still holds 10.244.7.0/24 (left from an earlier life of the node) while its Node has 10.244.2.0/24.
""")

    # dual-stack-missing-ipv6
    objs = [cilium_config("cluster-pool", "10.244.0.0/16", "fd00:10:244::/56",
                          extra={"enable-bgp-control-plane": "true"})]
    sp = []
    for i in range(1, 5):
        objs += [node(f"node{i}", i, ready=i != 4, v6=True), cilium_node(f"node{i}", i, [v4(i), v6(i)], v6=True)]
        routes = {1: [v4(1), v6(1)], 2: [v4(2), v6(2)], 3: [v4(3)]}.get(i)
        if routes:
            sp.append(speaker(f"node{i}", i, routes))
    write("dual-stack-missing-ipv6", objs, sp, """
# dual-stack-missing-ipv6
Dual stack, cluster-pool. node3 announces its IPv4 CIDR but not its IPv6 one (the peer config lacks the IPv6
family). node4 is NotReady and announces nothing, which is not a finding.
""")

    # multi-pool
    objs = [cilium_config("multi-pool", extra={"enable-bgp-control-plane": "true"}),
            pod_pool("default", "10.10.0.0/16", 24), pod_pool("blue", "10.20.0.0/16", 26)]
    alloc = {1: [("default", ["10.10.1.0/24"]), ("blue", ["10.20.0.0/26"])],
             2: [("default", ["10.10.2.0/24"]), ("blue", ["10.20.0.64/26"])],
             3: [("default", ["10.10.3.0/24"])]}
    routes = {1: ["10.10.1.0/24", "10.20.0.0/26"], 2: ["10.10.2.0/24"], 3: ["10.10.3.0/24", "10.20.0.128/26"]}
    sp = []
    for i in range(1, 4):
        objs += [node(f"node{i}", i), cilium_node(f"node{i}", i, pools=alloc[i])]
        sp.append(speaker(f"node{i}", i, routes[i]))
    write("multi-pool", objs, sp, """
# multi-pool
Multi-pool IPAM with CiliumPodIPPools default and blue. node2 does not announce its blue CIDR; node3 announces a
blue CIDR that is allocated to no node.
""")

    # kubenet-migration
    objs = [cilium_config("cluster-pool", "10.244.0.0/16", extra={"enable-bgp-control-plane": "true"})]
    sp = []
    for i in range(1, 4):
        objs += [node(f"node{i}", i), cilium_node(f"node{i}", i, [v4(i)])]
        sp.append(speaker(f"node{i}", i, [v4(i)]))
    objs.append(node("kubenet1", 21, [v4(100)], labels={"migration": "kubenet"}))
    objs.append(node("kubenet2", 22, [v4(101)], labels={"migration": "kubenet"}))
    sp.append(speaker("kubenet1", 21, [v4(100)]))
    write("kubenet-migration", objs, sp, """
# kubenet-migration
A cluster migrating from kubenet to Cilium: node1-3 run Cilium; kubenet1 and kubenet2 have no CiliumNode yet.
kubenet1 announces its own Node.spec.podCIDRs through another speaker; kubenet2 announces nothing. Neither is a
finding: no routes are expected from nodes Cilium does not manage. Expected: zero findings.
""")

    # leaks
    objs = [cilium_config("cluster-pool", "10.244.0.0/16", "fd00:10:244::/56",
                          extra={"enable-bgp-control-plane": "true"}), lb_pool("public-vips", "172.16.100.0/24")]
    extra = {1: ["0.0.0.0/0", "::/0", "172.16.100.10/32"], 2: ["10.0.0.12/32"], 3: ["10.244.0.0/16"]}
    sp = []
    for i in range(1, 4):
        objs += [node(f"node{i}", i, v6=True), cilium_node(f"node{i}", i, [v4(i), v6(i)], v6=True)]
        sp.append(speaker(f"node{i}", i, [v4(i), v6(i)] + extra[i]))
    write("leaks", objs, sp, """
# leaks
Route leaks: node1 announces default routes (0.0.0.0/0, ::/0) besides a legitimate LoadBalancer VIP, node2 its own
host route 10.0.0.12/32, node3 the aggregate 10.244.0.0/16 covering every node's pod CIDR.
""")


if __name__ == "__main__":
    main()
