#!/usr/bin/env bash
# Fetches the CRDs the tests install (Cilium's, one set per release of the
# version matrix, and the Prometheus Operator's) from the Go module proxy, as
# hack/tools/crds.txt pins them, and links their folders into
# ${ROUTEWARDEN_CACHE:-$HOME/.cache/routewarden}/crds/NAME.
#
# Each module is downloaded with `go mod download` into the normal module
# cache, from an empty directory (outside routewarden's module: go.mod and
# go.sum stay untouched), and its go.sum hash is compared with the pinned one.
# Idempotent: a cached module is not fetched again, and nothing goes to the
# network then (~12 s cold for the five modules: 150 MB of zips, 550 MB
# unpacked in the module cache; 0.2 s warm).
#
# Usage: hack/tools/crds.sh [--env]
# Prints the folder of links on stdout; with --env, the shell assignment
# ROUTEWARDEN_CRDS=... instead. Progress goes to stderr.
#
# Environment:
#   ROUTEWARDEN_CACHE       cache root (default $HOME/.cache/routewarden)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${ROUTEWARDEN_CACHE:-$HOME/.cache/routewarden}
bin=$cache/bin
out=$cache/crds
pins=$here/crds.txt

mode=path
for a in "$@"; do
	case $a in
	--env) mode=env ;;
	-h | --help)
		sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "crds.sh: unknown argument: $a" >&2
		exit 2
		;;
	esac
done

log() { echo "crds.sh: $*" >&2; }

# shellcheck source=lib.sh
source "$here/lib.sh"
prepare .lock-crds
mkdir -p "$out"

empty=$(mktemp -d)
trap 'rm -rf "$empty"' EXIT
export GOWORK=off GO111MODULE=on GOFLAGS=-mod=mod

start=$(date +%s)
names=()
while read -r name module version sum dir; do
	[[ -z $name || $name == \#* ]] && continue
	[[ -n $dir ]] || {
		log "$pins: line for $name: expected NAME MODULE VERSION SUM DIR"
		exit 1
	}
	names+=("$name")
	if ! json=$(cd "$empty" && go mod download -json "$module@$version"); then
		log "downloading $module@$version failed:"
		echo "$json" >&2
		exit 1
	fi
	got_dir=$(sed -n 's/^\t"Dir": "\(.*\)",\{0,1\}$/\1/p' <<<"$json")
	got_sum=$(sed -n 's/^\t"Sum": "\(.*\)",\{0,1\}$/\1/p' <<<"$json")
	if [[ $got_sum != "$sum" ]]; then
		log "$module@$version: go.sum hash $got_sum, but $pins pins $sum"
		exit 1
	fi
	if [[ ! -d $got_dir/$dir ]]; then
		log "$module@$version has no folder $dir"
		exit 1
	fi
	ln -sfn "$got_dir/$dir" "$out/$name"
done <"$pins"

# Links of releases no longer pinned go, so that nothing reads a stale release.
for l in "$out"/*; do
	[[ -L $l ]] || continue
	keep=0
	for n in "${names[@]}"; do [[ ${l##*/} == "$n" ]] && keep=1; done
	((keep)) || rm -f "$l"
done
log "${#names[@]} CRD sets in $out ($(($(date +%s) - start))s)"

if [[ $mode == env ]]; then
	printf 'ROUTEWARDEN_CRDS=%q\n' "$out"
else
	echo "$out"
fi
