#!/usr/bin/env bash
# Runs every fuzz target for a short while (FUZZTIME, default 5s each; FUZZPKGS narrows the packages): every parser of user input must
# survive anything, and so must a live collector whatever bytes a neighbor sends (bgp FuzzSession). Crashers
# are saved under the package's testdata/fuzz/ and replayed by go test.
#
# A target fails when go test writes a failing input (a crash, or a worker that hung). Go 1.26's fuzz
# coordinator can also end a clean run with a bare "context deadline exceeded" and no input written: a race
# between the -fuzztime deadline and its workers (go.dev/issue/75804, fixed in Go 1.27). Such a run is retried
# once; if it recurs without an input it is reported and not counted as a crash, since nothing was found.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fuzztime=${FUZZTIME:-5s}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# corpus_count prints how many inputs the target's saved corpus holds.
corpus_count() {
	local dir=$1
	if [[ -d $dir ]]; then find "$dir" -type f | wc -l; else echo 0; fi
}

# fuzz_once runs one target; it returns 0 when clean, 1 on a crasher, 2 on the coordinator race.
fuzz_once() {
	local pkg=$1 target=$2 dir=$1/testdata/fuzz/$2 before after
	before=$(corpus_count "$dir")
	if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$fuzztime" "$pkg" >"$log" 2>&1; then
		return 0
	fi
	after=$(corpus_count "$dir")
	if ((after == before)) && ! grep -q 'Failing input written' "$log" && grep -q 'context deadline exceeded' "$log"; then
		return 2
	fi
	return 1
}

for pkg in ${FUZZPKGS:-./bgp ./bgp/dump ./bgp/bmp ./bgp/wire ./kube ./config ./rtr}; do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
		echo "fuzz: $pkg $target for $fuzztime" >&2
		rc=0
		fuzz_once "$pkg" "$target" || rc=$?
		if ((rc == 2)); then
			echo "fuzz: $pkg $target ended with the Go coordinator's deadline race and no input (go.dev/issue/75804); retrying once" >&2
			rc=0
			fuzz_once "$pkg" "$target" || rc=$?
			if ((rc == 2)); then
				echo "fuzz: $pkg $target hit the coordinator race twice and wrote no failing input: not a crash, not counted" >&2
				rc=0
			fi
		fi
		if ((rc != 0)); then
			# The output is shown only when the target fails, so CI logs say why.
			cat "$log" >&2
			echo "fuzz: $pkg $target failed (the failing input is saved under $pkg/testdata/fuzz/$target)" >&2
			exit 1
		fi
	done
done
echo "fuzz: every target survived $fuzztime" >&2
