#!/usr/bin/env bash
# Installs what routewarden's tests need, idempotently, with a cache:
#   - Debian packages (only the missing ones; apt-get update only when needed),
#   - kube-apiserver, kubectl and etcd built from the Go module proxy into
#     ${ROUTEWARDEN_CACHE:-$HOME/.cache/routewarden}/bin (hack/tools/kube.sh; ~6 min cold, seconds warm),
#   - helm built from the Go module proxy into the same directory (hack/tools/helm.sh; ~3.5 min cold),
#   - Cilium's CRDs of every release of the version matrix, and the Prometheus Operator's, from the Go
#     module proxy into the module cache (hack/tools/crds.sh, pinned in hack/tools/crds.txt; ~12 s cold).
# Prints the environment the tests read (KUBE_APISERVER, KUBECTL, ETCD, HELM, ROUTEWARDEN_CRDS) as shell
# assignments.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

packages=(openssl ca-certificates prometheus-alertmanager prometheus frr frr-rpki-rtrlib bird2 chromium)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "test-deps: installing Debian packages: ${missing[*]}" >&2
	sudo=""
	[[ $(id -u) == 0 ]] || sudo=sudo
	$sudo apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
fi

"$here/tools/kube.sh" --env
"$here/tools/helm.sh" --env
"$here/tools/crds.sh" --env
