#!/usr/bin/env bash
# Regenerates the BGP route dumps of the test scenarios with real routing
# daemons: in-process GoBGP speakers (one per Kubernetes node, each on its own
# 127.0.x.y address) announce each scenario's routes.spec.yaml to gobgpd,
# FRR's bgpd (no zebra) and BIRD 2 (no kernel protocol), one at a time on
# 127.0.0.1, and the collectors' own outputs are written next to the spec:
#   routes.gobgp.json routes.gobgp-v6.json routes.gobgp-adjin.json routes.mrt
#   routes.frr.json routes.frr-v6.json routes.frr.mrt
#   routes.bird.txt routes.bird.mrt
# Every dump is then checked: its (prefix, next hop, peer) set must equal the
# spec's. Nothing is installed in the kernel routing table and no traffic
# leaves the loopback range.
#
# Usage: hack/gen-route-dumps.sh [scenario-dir...]
#   default: every testdata/scenarios/*/ that has a routes.spec.yaml
#   extra routegen flags can be passed in ROUTEGEN_FLAGS, e.g. "-v -keep-tmp"
#   or "-verify-only" (check the committed dumps without running daemons).
# Needs root only to apt-get install frr and bird2 when they are missing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${ROUTEWARDEN_CACHE:-$HOME/.cache/routewarden}"

if [[ $# -eq 0 ]]; then
	set --
	for spec in "$ROOT"/testdata/scenarios/*/routes.spec.yaml; do
		[[ -e "$spec" ]] && set -- "$@" "$(dirname "$spec")"
	done
	if [[ $# -eq 0 ]]; then
		echo "gen-route-dumps.sh: no testdata/scenarios/*/routes.spec.yaml" >&2
		exit 1
	fi
fi

if [[ " ${ROUTEGEN_FLAGS:-} " != *" -verify-only "* ]]; then
	missing=()
	[[ -x /usr/lib/frr/bgpd ]] && command -v vtysh >/dev/null || missing+=(frr)
	command -v bird >/dev/null && command -v birdc >/dev/null || missing+=(bird2)
	if [[ ${#missing[@]} -gt 0 ]]; then
		echo "gen-route-dumps.sh: installing ${missing[*]}" >&2
		SUDO=
		[[ $(id -u) -eq 0 ]] || SUDO=sudo
		$SUDO apt-get update
		# The packages' own services are not wanted (and are not started in
		# containers without systemd); routegen runs private instances.
		DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
	fi
	if ! bird --version 2>&1 | grep -q 'BIRD version 2\.'; then
		echo "gen-route-dumps.sh: bird is not BIRD 2: $(bird --version 2>&1)" >&2
		exit 1
	fi
fi

GOBGP_BIN="$("$ROOT/hack/tools/gobgp.sh")"

mkdir -p "$CACHE/bin"
(cd "$ROOT/hack/routegen" && GOFLAGS=-mod=readonly go build -o "$CACHE/bin/routegen" .)

# shellcheck disable=SC2086 # ROUTEGEN_FLAGS is a list of flags
exec "$CACHE/bin/routegen" -gobgp-bin "$GOBGP_BIN" ${ROUTEGEN_FLAGS:-} "$@"
