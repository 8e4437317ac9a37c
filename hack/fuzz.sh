#!/usr/bin/env bash
# Runs every fuzz target for a short while (FUZZTIME, default 5s each): every parser of user input must
# survive anything, and so must a live collector whatever bytes a neighbor sends (bgp FuzzSession). Crashers
# are saved under the package's testdata/fuzz/ and replayed by go test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fuzztime=${FUZZTIME:-5s}
for pkg in ./bgp ./bgp/dump ./bgp/bmp ./bgp/wire ./kube ./config ./rtr; do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
		echo "fuzz: $pkg $target for $fuzztime" >&2
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$fuzztime" "$pkg" >/dev/null
	done
done
echo "fuzz: every target survived $fuzztime" >&2
