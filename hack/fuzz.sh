#!/usr/bin/env bash
# Runs every fuzz target for a short while (FUZZTIME, default 5s each): every parser of user input must
# survive anything, and so must a live collector whatever bytes a neighbor sends (bgp FuzzSession). Crashers
# are saved under the package's testdata/fuzz/ and replayed by go test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fuzztime=${FUZZTIME:-5s}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for pkg in ./bgp ./bgp/dump ./bgp/bmp ./bgp/wire ./kube ./config ./rtr; do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
		echo "fuzz: $pkg $target for $fuzztime" >&2
		# The output is shown only when the target fails (a crasher, or a worker that hung), so CI logs say why.
		if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$fuzztime" "$pkg" >"$log" 2>&1; then
			cat "$log" >&2
			echo "fuzz: $pkg $target failed (a crasher is saved under $pkg/testdata/fuzz/$target)" >&2
			exit 1
		fi
	done
done
echo "fuzz: every target survived $fuzztime" >&2
