#!/usr/bin/env bash
# Builds gobgp and gobgpd (github.com/osrg/gobgp/v4) from the Go module proxy
# into ${ROUTEWARDEN_CACHE:-$HOME/.cache/routewarden}/gobgp-<version>/bin and
# prints that directory (one per version: a checkout of another version
# does not rebuild over it). Idempotent: skipped when a stamp file records that this version is
# installed and both binaries are present.
#
# `go install github.com/osrg/gobgp/v4/cmd/gobgp@v4.8.0` does not work here:
# it asks the proxy for the module's version list (to look for deprecations),
# which our proxy refuses. So the commands are installed from inside
# hack/routegen, a module that requires exactly that version and whose go.sum
# pins every dependency (its tools.go imports both commands).
set -euo pipefail

GOBGP_VERSION=v4.8.0
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MODDIR="$HERE/../routegen"
CACHE="${ROUTEWARDEN_CACHE:-$HOME/.cache/routewarden}"
BIN="$CACHE/gobgp-$GOBGP_VERSION/bin"
STAMP="$BIN/.gobgp.version"

if [[ -x "$BIN/gobgp" && -x "$BIN/gobgpd" && -f "$STAMP" && "$(cat "$STAMP")" == "$GOBGP_VERSION" ]]; then
	echo "$BIN"
	exit 0
fi

have="$(cd "$MODDIR" && go list -m -f '{{.Version}}' github.com/osrg/gobgp/v4)"
if [[ "$have" != "$GOBGP_VERSION" ]]; then
	echo "gobgp.sh: $MODDIR/go.mod requires gobgp $have, want $GOBGP_VERSION" >&2
	exit 1
fi

mkdir -p "$BIN"
rm -f "$STAMP"
echo "gobgp.sh: building gobgp and gobgpd $GOBGP_VERSION into $BIN" >&2
(cd "$MODDIR" && GOBIN="$BIN" GOFLAGS=-mod=readonly go install \
	github.com/osrg/gobgp/v4/cmd/gobgp \
	github.com/osrg/gobgp/v4/cmd/gobgpd)
echo "$GOBGP_VERSION" >"$STAMP"
echo "$BIN"
