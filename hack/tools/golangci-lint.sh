#!/usr/bin/env bash
# Builds golangci-lint (github.com/golangci/golangci-lint/v2) from the Go
# module proxy into ${ROUTEWARDEN_CACHE:-$HOME/.cache/routewarden}/bin and runs
# it on routewarden's module with .golangci.yml (`make lint`; hack/test.sh runs
# it). Needs no host but the module proxy.
#
# golangci-lint is built from hack/tools/golangci, a module that requires
# exactly GOLANGCI_VERSION and whose go.sum pins every dependency. Idempotent:
# a stamp records what the binary was built from (~4 min cold, nothing warm).
#
# Usage: hack/tools/golangci-lint.sh [--force] [--path] [-- GOLANGCI-LINT-RUN-ARGS…]
#   --force  rebuild the binary even when the stamp matches
#   --path   only build golangci-lint, and print the binary's path on stdout
#   GOLANGCI-LINT-RUN-ARGS default: ./...
# Exit: golangci-lint's (0 clean, 1 issues found), 1 when the build fails.
#
# Environment:
#   ROUTEWARDEN_CACHE    cache root (default $HOME/.cache/routewarden)
#   ROUTEWARDEN_BUILD_P  value for `go build -p` (default: the number of CPUs)
set -euo pipefail

GOLANGCI_VERSION=v2.15.0 # must match hack/tools/golangci/go.mod

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${ROUTEWARDEN_CACHE:-$HOME/.cache/routewarden}
bin=$cache/bin
mod=$here/golangci

force=0
pathonly=0
args=()
while (($#)); do
	case $1 in
	--force) force=1 ;;
	--path) pathonly=1 ;;
	--)
		shift
		args=("$@")
		break
		;;
	-h | --help)
		awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"
		exit 0
		;;
	*)
		echo "golangci-lint.sh: unknown argument: $1" >&2
		exit 2
		;;
	esac
	shift
done
((${#args[@]})) || args=(./...)

log() { echo "golangci-lint.sh: $*" >&2; }

# shellcheck source=lib.sh
source "$here/lib.sh"
prepare .lock-golangci

goversion=$(go env GOVERSION)
have=$(GOWORK=off GOFLAGS=-mod=readonly go -C "$mod" list -m -f '{{.Version}}' github.com/golangci/golangci-lint/v2)
if [[ $have != "$GOLANGCI_VERSION" ]]; then
	log "$mod/go.mod requires golangci-lint $have, want $GOLANGCI_VERSION"
	exit 1
fi
ldflags="-s -w"
stamp=$(stamp_text "golangci-lint=$GOLANGCI_VERSION" "$ldflags" "$mod/go.mod" "$mod/go.sum")
if stamp_ok golangci "$stamp" golangci-lint; then
	log "golangci-lint $GOLANGCI_VERSION up to date"
else
	GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=readonly build golangci "$mod" "$ldflags" "$stamp" \
		github.com/golangci/golangci-lint/v2/cmd/golangci-lint
fi
if ((pathonly)); then
	echo "$bin/golangci-lint"
	exit 0
fi
cd "$repo"
exec "$bin/golangci-lint" run --config "$repo/.golangci.yml" "${args[@]}"
