#!/usr/bin/env bash
# Builds govulncheck (golang.org/x/vuln/cmd/govulncheck) and the Go
# vulnerability database from the Go module proxy into
# ${ROUTEWARDEN_CACHE:-$HOME/.cache/routewarden} and scans routewarden's module
# (`make vulncheck`; hack/test.sh runs it). Needs no host but the module proxy.
#
# govulncheck is built from hack/tools/govulncheck, a module that requires
# exactly GOVULNCHECK_VERSION and whose go.sum pins every dependency.
#
# The database is the module golang.org/x/vulndb at VULNDB_VERSION (pinned by
# hack/tools/vulndb): its data/osv/*.json are indexed by its own cmd/indexdb
# into the v1 layout govulncheck reads ($cache/vulndb/VERSION), and the scan
# uses file:// that. It is a snapshot: bump VULNDB_VERSION (and the module) to
# see newer advisories; the scan prints the snapshot's age. ROUTEWARDEN_VULNDB
# overrides it with another database (https://vuln.go.dev, a mirror, file://…).
#
# Idempotent: stamps record what the binaries and the database were built
# from (~3 min cold, nothing warm; the scan itself takes ~40 s). Findings
# (vulnerable code that routewarden reaches) listed with a reason in
# hack/tools/govulncheck/explained.txt are printed as a notice; any other
# finding fails.
#
# Usage: hack/tools/govulncheck.sh [--force] [--path] [--allow-offline] [-- GOVULNCHECK-ARGS…]
#   --force          rebuild the binaries and the database even when the stamps match
#   --path           only build govulncheck, and print the binary's path on stdout
#   --allow-offline  exit 0 (with a notice) when ROUTEWARDEN_VULNDB is unreachable
#   GOVULNCHECK-ARGS default: ./...
# Exit: 0 no vulnerability reached by the code, or only explained ones; 3
# unexplained vulnerabilities; 4 database (ROUTEWARDEN_VULNDB) unreachable;
# 1 other errors.
#
# Environment:
#   ROUTEWARDEN_CACHE    cache root (default $HOME/.cache/routewarden)
#   ROUTEWARDEN_VULNDB   database URL (default: file:// the one built from golang.org/x/vulndb)
#   ROUTEWARDEN_BUILD_P  value for `go build -p` (default: the number of CPUs)
set -euo pipefail

GOVULNCHECK_VERSION=v1.8.0                         # must match hack/tools/govulncheck/go.mod
VULNDB_VERSION=v0.0.0-20260813214354-9de686e1fb00 # must match hack/tools/vulndb/go.mod

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${ROUTEWARDEN_CACHE:-$HOME/.cache/routewarden}
bin=$cache/bin
mod=$here/govulncheck
dbmod=$here/vulndb
explained=$mod/explained.txt

force=0
pathonly=0
offline_ok=0
args=()
while (($#)); do
	case $1 in
	--force) force=1 ;;
	--path) pathonly=1 ;;
	--allow-offline) offline_ok=1 ;;
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
		echo "govulncheck.sh: unknown argument: $1" >&2
		exit 2
		;;
	esac
	shift
done
((${#args[@]})) || args=(./...)

log() { echo "govulncheck.sh: $*" >&2; }

# shellcheck source=lib.sh
source "$here/lib.sh"
prepare .lock-govulncheck

goversion=$(go env GOVERSION)
modversion() { GOWORK=off GOFLAGS=-mod=readonly go -C "$1" list -m -f '{{.Version}}' "$2"; }
have=$(modversion "$mod" golang.org/x/vuln)
if [[ $have != "$GOVULNCHECK_VERSION" ]]; then
	log "$mod/go.mod requires golang.org/x/vuln $have, want $GOVULNCHECK_VERSION"
	exit 1
fi
ldflags="-s -w"
stamp=$(stamp_text "govulncheck=$GOVULNCHECK_VERSION" "$ldflags" "$mod/go.mod" "$mod/go.sum")
if stamp_ok govulncheck "$stamp" govulncheck; then
	log "govulncheck $GOVULNCHECK_VERSION up to date"
else
	GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=readonly build govulncheck "$mod" "$ldflags" "$stamp" \
		golang.org/x/vuln/cmd/govulncheck
fi
if ((pathonly)); then
	echo "$bin/govulncheck"
	exit 0
fi

# build_db : build indexdb and index golang.org/x/vulndb's OSV files into
# $dbdir, once per VULNDB_VERSION (stamped inside the database directory).
dbdir=$cache/vulndb/$VULNDB_VERSION
build_db() {
	local have stamp src tmp start ts
	have=$(modversion "$dbmod" golang.org/x/vulndb)
	if [[ $have != "$VULNDB_VERSION" ]]; then
		log "$dbmod/go.mod requires golang.org/x/vulndb $have, want $VULNDB_VERSION"
		return 1
	fi
	stamp=$(stamp_text "indexdb=$VULNDB_VERSION" "$ldflags" "$dbmod/go.mod" "$dbmod/go.sum")
	if stamp_ok indexdb "$stamp" indexdb && [[ -f $dbdir/.stamp && $(cat "$dbdir/.stamp") == "$stamp" ]]; then
		log "vulnerability database $VULNDB_VERSION up to date"
		return 0
	fi
	if ! stamp_ok indexdb "$stamp" indexdb; then
		GOWORK=off CGO_ENABLED=0 GOFLAGS=-mod=readonly build indexdb "$dbmod" "$ldflags" "$stamp" \
			golang.org/x/vulndb/cmd/indexdb || return 1
	fi
	# The build downloaded the whole module, data/osv included (read-only).
	src=$(GOWORK=off GOFLAGS=-mod=readonly go -C "$dbmod" list -m -f '{{.Dir}}' golang.org/x/vulndb)
	[[ -d $src/data/osv ]] || {
		log "no data/osv in $src"
		return 1
	}
	start=$(date +%s)
	mkdir -p "$cache/vulndb"
	tmp=$(mktemp -d "$cache/vulndb/.build.XXXXXX")
	if ! "$bin/indexdb" -vulns "$src/data/osv" -out "$tmp"; then
		rm -rf "$tmp"
		log "indexing $src/data/osv failed"
		return 1
	fi
	# indexdb leaves the database's modification time at zero; record the
	# snapshot's (the pseudo-version's commit time) for govulncheck's output.
	ts=${VULNDB_VERSION#v0.0.0-}
	ts=${ts%%-*}
	ts="${ts:0:4}-${ts:4:2}-${ts:6:2}T${ts:8:2}:${ts:10:2}:${ts:12:2}Z"
	printf '{"modified":"%s"}' "$ts" >"$tmp/index/db.json"
	gzip -n -c "$tmp/index/db.json" >"$tmp/index/db.json.gz"
	printf '%s\n' "$stamp" >"$tmp/.stamp"
	rm -rf "$dbdir"
	mv "$tmp" "$dbdir"
	# Older snapshots are no longer used.
	find "$cache/vulndb" -mindepth 1 -maxdepth 1 ! -name "$VULNDB_VERSION" -exec rm -rf {} +
	log "indexed $(find "$dbdir/ID" -name '*.json' | wc -l) advisories into $dbdir in $(($(date +%s) - start))s"
}

if [[ -n ${ROUTEWARDEN_VULNDB:-} ]]; then
	db=$ROUTEWARDEN_VULNDB
else
	build_db
	db=file://$dbdir
	snap=${VULNDB_VERSION#v0.0.0-}
	snap=${snap:0:8}
	age=$((($(date -u +%s) - $(date -u -d "${snap:0:4}-${snap:4:2}-${snap:6:2}" +%s)) / 86400))
	log "database: golang.org/x/vulndb@$VULNDB_VERSION (snapshot of ${snap:0:4}-${snap:4:2}-${snap:6:2}, $age days old)"
fi
[[ -z ${lock_fd:-} ]] || exec {lock_fd}>&- # The scan below needs no lock.

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
set +e
(cd "$repo" && "$bin/govulncheck" -db "$db" "${args[@]}") >"$tmp/out" 2>"$tmp/err"
rc=$?
set -e

if ((rc != 0 && rc != 3)); then
	cat "$tmp/out" >&2
	# govulncheck says "fetching vulnerabilities: …" when it cannot read the database.
	if [[ -n ${ROUTEWARDEN_VULNDB:-} ]] && grep -q 'fetching vulnerabilities' "$tmp/err"; then
		cat >&2 <<-EOF
			################################################################################
			govulncheck.sh: DATABASE UNREACHABLE — NO VULNERABILITY SCAN WAS DONE
			  database: $db
			  $(tr '\n' ' ' <"$tmp/err" | cut -c1-300)
			  Unset ROUTEWARDEN_VULNDB to scan with the database built from the Go module
			  proxy (golang.org/x/vulndb), or point it at a reachable one (https://… or file://…).
			################################################################################
		EOF
		((offline_ok)) && exit 0
		exit 4
	fi
	cat "$tmp/err" >&2
	log "govulncheck failed (exit $rc)"
	exit 1
fi
cat "$tmp/err" >&2

# The report, with at most 3 example traces per vulnerability (a finding with
# no symbol information lists every function of the module it reaches).
awk -v all="$bin/govulncheck -db $db ./..." '
	/^Vulnerability #[0-9]+: / { n = 0 }
	/^      #[0-9]+: / { if (++n > 3) { more++; next } }
	more && !/^      #[0-9]+: / { printf "      … and %d more (all: %s)\n", more, all; more = 0 }
	{ print }
' "$tmp/out"
# Exit 3: vulnerabilities reached by the code. Each must be explained.
found=()
if ((rc == 3)); then
	mapfile -t found < <(sed -nE 's/^Vulnerability #[0-9]+: (GO-[0-9]{4}-[0-9]+).*/\1/p' "$tmp/out" | sort -u)
	if ((${#found[@]} == 0)); then
		log "govulncheck reported vulnerabilities (exit 3) but no 'Vulnerability #N: GO-…' line was parsed"
		exit 3
	fi
fi
while read -r id _; do
	[[ -z $id || $id == \#* ]] && continue
	printf '%s\n' "${found[@]}" | grep -qxF "$id" ||
		log "note: $id is explained in ${explained#"$repo"/} but no longer found; remove it"
done < <(cat "$explained" 2>/dev/null || true)
((rc == 3)) || exit 0
unexplained=()
for id in "${found[@]}"; do
	reason=$(awk -v id="$id" '$1 == id { $1 = ""; sub(/^ +/, ""); print; exit }' "$explained" 2>/dev/null || true)
	if [[ -n $reason ]]; then
		log "explained: $id: $reason"
	else
		unexplained+=("$id")
	fi
done
if ((${#unexplained[@]})); then
	log "UNEXPLAINED vulnerabilities: ${unexplained[*]}"
	log "fix them, or add each to ${explained#"$repo"/} with why it is accepted"
	exit 3
fi
log "${#found[@]} vulnerability(ies) found, all explained in ${explained#"$repo"/}"
