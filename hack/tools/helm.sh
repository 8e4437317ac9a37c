#!/usr/bin/env bash
# Builds Helm (helm.sh/helm/v3/cmd/helm) from the Go module proxy into
# ${ROUTEWARDEN_CACHE:-$HOME/.cache/routewarden}/bin, for the chart's tests and
# `make manifests`.
#
# Built from hack/tools/helm, a module that requires exactly HELM_VERSION and
# whose go.sum pins every dependency (`go install pkg@version` asks the proxy
# for version lists, which some proxies refuse, and pins nothing). The
# ldflags are those of Helm's own Makefile: the version, and the Kubernetes
# version `helm template` and `helm lint` assume (from client-go's version;
# without it Helm would assume 1.20).
#
# Idempotent: a stamp file in the bin directory records what the binary was
# built from (version, go.mod/go.sum digest, Go version, ldflags); when it
# matches and the binary exists, nothing is built (~3.5 min cold on 2 cores, seconds warm).
#
# Usage: hack/tools/helm.sh [--force] [--env]
# Prints the helm binary's path on stdout; with --env, the shell assignment
# HELM=... instead. Progress goes to stderr.
#
# Environment:
#   ROUTEWARDEN_CACHE       cache root (default $HOME/.cache/routewarden)
#   ROUTEWARDEN_BUILD_P     value for `go build -p` (default: the number of CPUs)
set -euo pipefail

HELM_VERSION=v3.16.4 # must match hack/tools/helm/go.mod

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${ROUTEWARDEN_CACHE:-$HOME/.cache/routewarden}
bin=$cache/bin
mod=$here/helm

force=0
mode=path
for a in "$@"; do
	case $a in
	--force) force=1 ;;
	--env) mode=env ;;
	-h | --help)
		sed -n '2,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "helm.sh: unknown argument: $a" >&2
		exit 2
		;;
	esac
done

log() { echo "helm.sh: $*" >&2; }

# shellcheck source=lib.sh
source "$here/lib.sh"
# Serialise concurrent invocations (kube.sh uses another lock file: they may build side by side).
prepare .lock-helm

export GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=readonly
goversion=$(go env GOVERSION)

have=$(go -C "$mod" list -m -f '{{.Version}}' helm.sh/helm/v3)
if [[ $have != "$HELM_VERSION" ]]; then
	log "$mod/go.mod requires helm $have, want $HELM_VERSION"
	exit 1
fi
# client-go v0.MINOR.x is Kubernetes 1.MINOR (Helm's Makefile does the same).
cgo=$(go -C "$mod" list -m -f '{{.Version}}' k8s.io/client-go)
kminor=${cgo#v0.}
kminor=${kminor%%.*}

ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
ldflags+=" -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
for p in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
	ldflags+=" -X $p.k8sVersionMajor=1 -X $p.k8sVersionMinor=$kminor"
done
stamp=$(stamp_text "helm=$HELM_VERSION" "$ldflags" "$mod/go.mod" "$mod/go.sum")
if stamp_ok helm "$stamp" helm; then
	log "helm $HELM_VERSION up to date"
else
	build helm "$mod" "$ldflags" "$stamp" helm.sh/helm/v3/cmd/helm
fi

if [[ $mode == env ]]; then
	printf 'HELM=%q\n' "$bin/helm"
else
	echo "$bin/helm"
fi
