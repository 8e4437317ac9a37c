#!/usr/bin/env bash
# routewarden's test command (docs/development.md's, and CI's): installs what the tests
# need (hack/test-deps.sh: idempotent, cached), checks formatting, vet and that
# go.mod is tidy (go mod tidy -diff), then
# runs every test (the quick tier, then the rest), and last the Cilium interop harness (hack/cilium-interop.sh).
# Extra arguments go to go test (e.g. -run Scenario).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

eval "$(hack/test-deps.sh)"
export KUBE_APISERVER KUBECTL ETCD HELM ROUTEWARDEN_CRDS

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [[ -n $unformatted ]]; then
	echo "gofmt would change:" >&2
	echo "$unformatted" >&2
	exit 1
fi
go vet ./...
if ! go mod tidy -diff; then
	echo "go.mod or go.sum is not tidy: run go mod tidy (make tidy)" >&2
	exit 1
fi
hack/tools/govulncheck.sh # database from the module proxy; fails on a finding not in hack/tools/govulncheck/explained.txt
hack/tools/golangci-lint.sh # pinned, built from the module proxy; .golangci.yml says which linters and why
# The quick tier first (go test -short: units, goldens, in-process BGP; about 2 minutes), so that a plain
# mistake fails in minutes; then the rest: exactly the tests the quick tier skipped, each once
# (hack/testtier). The end-to-end tests take minutes on a 2-core machine, longer on a busy one: the default
# 10-minute limit would fail a slow machine, not a broken test.
go run ./hack/testtier -timeout 40m "$@" -- ./...
hack/fuzz.sh
make bench-quick # the benchmark harness at tiny sizes: fails only if the harness is broken, never on speed

# ── Judged against Cilium itself ─────────────────────────────────────────────────────────────
# Cilium's own BGP control plane (interop/cilium, a module of its own) against routewarden run:
# needs root (network namespaces), builds ciliumbgp once into the cache (see the script).
hack/cilium-interop.sh
