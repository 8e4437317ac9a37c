#!/usr/bin/env bash
# Regenerates the cluster fixtures of test scenarios from a real kube-apiserver
# with Cilium's real CRDs installed.
#
# Usage: hack/gen-cluster-fixtures.sh [SCENARIO_DIR...]
#   default: every testdata/scenarios/*/ that has a cluster.input.yaml
#
# For each scenario, with a fresh etcd + kube-apiserver (hack/kube-env.sh):
#   1. install the CRDs routewarden reads (CiliumNode, the IP pools, the BGP
#      CRDs) of the newest Cilium release of hack/tools/crds.txt, as the release
#      ships them (hack/tools/crds.sh fetches them from the Go module proxy),
#      and wait until they are Established;
#   2. create the objects of cluster.input.yaml (multi-document YAML) with
#      strict field validation: an object that is invalid against the CRD
#      schema stops the run with the apiserver's error;
#   3. for every document that has a top-level `status:`, write that status
#      through the status subresource (create ignores status there);
#   4. ownerReferences to a Node get the real uid of that Node (the input may
#      carry any placeholder uid, e.g. 00000000-0000-0000-0000-000000000000);
#   5. write, into the scenario directory:
#        cluster.json        kubectl get nodes,ciliumnodes.cilium.io,
#                            ciliumpodippools.cilium.io,
#                            ciliumloadbalancerippools.cilium.io -A -o json
#                            (plus services, endpointslices.discovery.k8s.io,
#                            ciliumbgpadvertisements and ciliumbgppeerconfigs
#                            when the input has a Service)
#        cilium-config.yaml  kubectl -n kube-system get configmap cilium-config -o yaml
#                            (only when the input has that ConfigMap)
# The output is the real apiserver output, so uid, resourceVersion and
# creationTimestamp change on every run.
#
# Environment: ROUTEWARDEN_CRDS (the CRD sets of hack/tools/crds.sh; run when
# unset), ROUTEWARDEN_FIXTURES_CILIUM (the release, e.g. v1.19.7; default the
# newest), KEEP_ENV=1 keeps the control plane state directories (printed) for
# debugging.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ -n ${ROUTEWARDEN_CRDS:-} ]] || eval "$("$repo/hack/tools/crds.sh" --env)"
release=${ROUTEWARDEN_FIXTURES_CILIUM:-$(awk '$1 ~ /^cilium-v/ {print substr($1, 8)}' "$repo/hack/tools/crds.txt" | sort -V | tail -1)}
crds=$ROUTEWARDEN_CRDS/cilium-$release
fm=routewarden-fixtures

die() {
	echo "gen-cluster-fixtures.sh: $*" >&2
	exit 1
}
log() { echo "gen-cluster-fixtures.sh: $*" >&2; }

[[ -d $crds/v2 && -d $crds/v2alpha1 ]] || die "no Cilium CRDs in $crds (expected v2/ and v2alpha1/; run hack/tools/crds.sh)"
log "Cilium $release's CRDs"

if (($# == 0)); then
	for f in "$repo"/testdata/scenarios/*/cluster.input.yaml; do
		[[ -f $f ]] && set -- "$@" "$(dirname "$f")"
	done
	(($# > 0)) || die "no testdata/scenarios/*/cluster.input.yaml found"
fi
for s in "$@"; do
	[[ -f $s/cluster.input.yaml ]] || die "$s has no cluster.input.yaml"
done

# Build (or find) the binaries once, before any per-scenario work.
eval "$("$repo/hack/tools/kube.sh" --env)"
export KUBE_APISERVER KUBECTL ETCD

k() { "$KUBECTL" "$@"; }

# split_docs FILE OUTDIR: one file per YAML document that has content.
split_docs() {
	awk -v out="$2" '
		function flush() { if (has) { n++; f = sprintf("%s/%03d.yaml", out, n); printf "%s", buf > f; close(f) } buf = ""; has = 0 }
		/^---([ \t].*)?$/ { flush(); next }
		/^\.\.\.[ \t]*$/ { next }
		{ buf = buf $0 "\n"; if ($0 !~ /^[ \t]*(#.*)?$/) has = 1 }
		END { flush() }
	' "$1"
}

install_crds() {
	local args=() f
	for f in "$crds"/v2/*.yaml "$crds"/v2alpha1/*.yaml; do
		case ${f##*/} in
		ciliumnodes.yaml | ciliumpodippools.yaml | ciliumloadbalancerippools.yaml | ciliumbgp*.yaml) args+=(-f "$f") ;;
		esac
	done
	k create "${args[@]}" >/dev/null
	k wait --for=condition=Established --timeout=60s crd --all >/dev/null
	# The namespace is created by the apiserver itself shortly after start.
	local i
	for ((i = 0; i < 100; i++)); do
		k get namespace kube-system >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	k create namespace kube-system >/dev/null
}

# fix_owner_uids DOC: point ownerReferences of kind Node at the real Node uid.
fix_owner_uids() {
	local doc=$1 refs kind name i=0 uid cur
	refs=$(k create --dry-run=client -f "$doc" -o jsonpath='{range .metadata.ownerReferences[*]}{.kind}{" "}{.name}{"\n"}{end}')
	[[ -n $refs ]] || return 0
	while read -r kind name; do
		if [[ $kind == Node ]]; then
			uid=$(k get node "$name" -o jsonpath='{.metadata.uid}') ||
				die "$doc: ownerReference to Node $name, which is not in the input"
			cur=$(k get -f "$doc" -o jsonpath="{.metadata.ownerReferences[$i].uid}")
			if [[ $cur != "$uid" ]]; then
				k patch -f "$doc" --type=json \
					-p "[{\"op\":\"replace\",\"path\":\"/metadata/ownerReferences/$i/uid\",\"value\":\"$uid\"}]" >/dev/null
			fi
		fi
		i=$((i + 1))
	done <<<"$refs"
}

# create_all FILE: create every object of FILE (POST, as kubelet and the Cilium
# agent/operator do; not server-side apply, whose list-map merge rejects e.g.
# a dual-stack Node's two status.addresses of type InternalIP). Field
# validation is strict, so an unknown field is an error, not silently pruned.
# Namespaces the apiserver creates itself (kube-system, ...) may be in FILE.
create_all() {
	local input=$1 err rest
	if err=$(k create --validate=strict --field-manager="$fm" -f "$input" 2>&1 >/dev/null); then
		[[ -z $err ]] || echo "$err" >&2
		return 0
	fi
	rest=$(grep -vE '^Error from server \(AlreadyExists\): error when creating ".*": namespaces "[^"]+" already exists$' <<<"$err" || true)
	if [[ -n $rest ]]; then
		echo "$err" >&2
		die "$input: creating the scenario's objects failed (the CRDs are the authority: fix the input)"
	fi
}

# set_status DOCDIR STATUSDIR: write the status of every document that has a
# top-level `status:` through the status subresource (PUT .../status, as a
# controller's UpdateStatus does); create ignores status for resources that
# have that subresource, e.g. CiliumNode.
set_status() {
	local docs=$1 sdir=$2 doc n=0
	mkdir -p "$sdir"
	for doc in "$docs"/*.yaml; do
		[[ -f $doc ]] || continue
		if grep -qE '^status:' "$doc" && ! grep -qE '^status:[[:space:]]*(\{\}|null|~)[[:space:]]*(#.*)?$' "$doc"; then
			cp "$doc" "$sdir/" && n=$((n + 1))
		fi
	done
	((n > 0)) || return 0
	k replace --validate=strict --field-manager="$fm" --subresource=status -f "$sdir" >/dev/null ||
		die "setting the status of the objects above failed (documents in $sdir)"
}

gen_one() {
	local scen=$1 work=$2 input=$1/cluster.input.yaml
	local t0=$SECONDS
	# No controller-manager runs, so nothing would lift the not-ready taint that
	# the TaintNodesByCondition admission plugin puts on every new Node: leave
	# that plugin out, so Nodes carry exactly the input's taints.
	KUBE_ENV_APISERVER_ARGS="--disable-admission-plugins=TaintNodesByCondition ${KUBE_ENV_APISERVER_ARGS:-}" \
		"$repo/hack/kube-env.sh" start "$work/env" || die "control plane did not start"
	# shellcheck disable=SC1091
	. "$work/env/env"
	export KUBECONFIG KUBECACHEDIR
	install_crds

	mkdir -p "$work/docs"
	split_docs "$input" "$work/docs"
	create_all "$input"

	local doc has_cm=0
	for doc in "$work"/docs/*.yaml; do
		grep -q 'ownerReferences:' "$doc" && fix_owner_uids "$doc"
	done
	set_status "$work/docs" "$work/status"
	k -n kube-system get configmap cilium-config >/dev/null 2>&1 && has_cm=1

	local kinds=nodes,ciliumnodes.cilium.io,ciliumpodippools.cilium.io,ciliumloadbalancerippools.cilium.io
	# Scenarios of the VIP rules also hold Services, their EndpointSlices and
	# the BGP objects that say which Services Cilium announces (only those: a
	# cluster file with Services turns the VIP rules on).
	if grep -qE '^kind: Service$' "$input"; then
		kinds+=,services,endpointslices.discovery.k8s.io,ciliumbgpadvertisements.cilium.io,ciliumbgppeerconfigs.cilium.io
	fi
	k get "$kinds" -A -o json >"$work/cluster.json"
	mv -f "$work/cluster.json" "$scen/cluster.json"
	if ((has_cm)); then
		k -n kube-system get configmap cilium-config -o yaml >"$work/cilium-config.yaml"
		mv -f "$work/cilium-config.yaml" "$scen/cilium-config.yaml"
	fi
	log "$scen: wrote cluster.json$( ((has_cm)) && echo ", cilium-config.yaml") in $((SECONDS - t0))s"
}

work=
cleanup() {
	[[ -n $work ]] || return 0
	"$repo/hack/kube-env.sh" stop "$work/env" || true
	if [[ ${KEEP_ENV:-} == 1 ]]; then
		log "kept $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for s in "$@"; do
	s=$(cd "$s" && pwd)
	work=$(mktemp -d "${TMPDIR:-/tmp}/routewarden-fixtures.XXXXXX")
	(gen_one "$s" "$work") || { rc=$?; log "$s: failed"; exit "$rc"; }
	cleanup
	work=
done
