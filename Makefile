# routewarden — see README.md. `make help` lists the targets.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: help build test test-go lint bench fixtures

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

build: ## build bin/routewarden (static)
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/routewarden ./cmd/routewarden

test: ## install test dependencies (cached) and run every test — the README's test command
	hack/test.sh

test-go: ## run the Go tests only, with what is already installed
	$(GO) test ./...

lint: ## gofmt and go vet
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...

bench: ## engine benchmarks
	$(GO) test -run '^$$' -bench . -benchmem ./validator/

fixtures: ## regenerate scenario fixtures with real daemons and a real kube-apiserver
	python3 hack/scenario-inputs.py
	hack/gen-cluster-fixtures.sh
	hack/gen-route-dumps.sh
