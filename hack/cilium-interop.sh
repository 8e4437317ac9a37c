#!/usr/bin/env bash
# Judged against Cilium itself (interop/cilium/README.md): runs Cilium's own BGP control plane,
# one agent per node in a network namespace of its own, against `routewarden run` and a real
# kube-apiserver, through the scenarios of interop/cilium, and fails on any unexpected finding.
#
# Builds what it needs, idempotently, with a cache (as hack/tools/*.sh):
#   - kube-apiserver, kubectl, etcd (hack/tools/kube.sh) and the Cilium CRDs (hack/tools/crds.sh),
#   - ciliumbgp (interop/cilium/cmd/ciliumbgp: Cilium's pkg/bgp and operator/pkg/bgp, from the
#     Go module proxy), once per release of interop/cilium/releases.txt, into
#     ${ROUTEWARDEN_CACHE:-$HOME/.cache/routewarden}/bin/ciliumbgp-VERSION, stamped; the first
#     build takes many minutes per release (Cilium is large), later runs seconds,
#   - routewarden from this tree (always: it is what is tested; seconds with a warm build cache).
# Needs root (network namespaces); without it the scenarios are skipped, saying why.
#
# Usage: hack/cilium-interop.sh [go test flags, e.g. -test.run 'TestCilium/v1.20.2/pod-cidr']
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
here=$repo/hack/tools
cache=${ROUTEWARDEN_CACHE:-$HOME/.cache/routewarden}
force=0
start_all=$(date +%s)

log() { echo "cilium-interop: $*" >&2; }

# shellcheck source=tools/lib.sh
source "$here/lib.sh"

eval "$("$here/kube.sh" --env)"
eval "$("$here/crds.sh" --env)"
export KUBE_APISERVER KUBECTL ETCD ROUTEWARDEN_CRDS

export GOWORK=off CGO_ENABLED=0
goversion=$(go env GOVERSION)
mod=$repo/interop/cilium
# One ciliumbgp per release of interop/cilium/releases.txt, each in a folder of its own.
while read -r version modfile tags; do
	[[ -z $version || $version == \#* ]] && continue
	bin=$cache/bin/ciliumbgp-$version
	prepare .lock
	sum=${modfile%.mod}.sum
	stamp=$(stamp_text "ciliumbgp=$version tags=$tags" "-s -w" "$mod/$modfile" "$mod/$sum" "$mod"/cmd/ciliumbgp/*.go)
	if stamp_ok ciliumbgp "$stamp" ciliumbgp; then
		log "ciliumbgp for Cilium $version up to date"
	else
		build ciliumbgp "$mod" "-s -w" "$stamp" -modfile="$modfile" -tags="$tags" ./cmd/ciliumbgp
	fi
	exec {lock_fd}>&-
done <"$mod/releases.txt"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log "building routewarden and the scenarios"
go -C "$repo" build -o "$work/routewarden" ./cmd/routewarden
go -C "$mod" vet .
go -C "$mod" test -c -o "$work/interop.test" .
export ROUTEWARDEN_BIN=$work/routewarden CILIUMBGP_BINS=$cache/bin
log "ready after $(($(date +%s) - start_all))s; running the scenarios"
if [[ $# -gt 0 ]]; then
	(cd "$mod" && "$work/interop.test" -test.v -test.count=1 -test.timeout=40m "$@")
else
	# One process per release, side by side: each runs in a ToR namespace of its own (TestMain), with
	# its own API server, routewarden and agents, so they share nothing but the CPUs; the scenarios
	# spend most of their time waiting on BGP and the API server. Each line says whose it is.
	pids=()
	while read -r version _; do
		[[ -z $version || $version == \#* ]] && continue
		(cd "$mod" && set -o pipefail && "$work/interop.test" -test.v -test.count=1 -test.timeout=40m \
			-test.run "^TestCilium\$/^${version//./\\.}\$" 2>&1 </dev/null | sed -u "s/^/[$version] /") &
		pids+=($!)
	done <"$mod/releases.txt"
	failed=0
	for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
	if ((failed)); then
		log "failed after $(($(date +%s) - start_all))s (lines of each release start with [version])"
		exit 1
	fi
fi
log "done in $(($(date +%s) - start_all))s"
