# sharevat developer targets. `make help` lists them.
GO ?= go
PKGS := ./...

.PHONY: help build run test check generate check-generate stress fuzz bench licenses

help: ## list targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-15s %s\n", $$1, $$2}'

# The version every binary, archive and image is stamped with
# (internal/version): the git tag at HEAD, else a Go pseudo-version after
# the last tag, "+dirty" with uncommitted changes (internal/dist/git.go);
# `make dist VERSION=v0.1.0` sets it. Computed once, only where used.
VERSION ?= $(eval VERSION := $$(shell $(GO) run ./internal/dist version))$(VERSION)
COMMIT ?= $(eval COMMIT := $$(shell git rev-parse HEAD 2>/dev/null || echo unknown))$(COMMIT)
STAMP = -X github.com/sharevat/sharevat/internal/version.version=$(VERSION) -X github.com/sharevat/sharevat/internal/version.commit=$(COMMIT)

build: ## build bin/sharevat, stamped with VERSION
	$(GO) build -trimpath -buildvcs=false -ldflags '$(STAMP)' -o bin/sharevat ./cmd/sharevat

# `make install` builds cmd/sharevat with go install into
# $(DESTDIR)$(PREFIX)/bin (DESTDIR: a staging root for packagers), stamped
# with VERSION. go install refuses GOBIN for a cross-compiled binary: use
# go build -o then.
PREFIX ?= /usr/local
.PHONY: install dist docker
install: ## install sharevat into $(DESTDIR)$(PREFIX)/bin (default PREFIX=/usr/local)
	GOBIN="$(abspath $(DESTDIR)$(PREFIX)/bin)" $(GO) install -trimpath -buildvcs=false -ldflags '$(STAMP)' ./cmd/sharevat

# Release archives, reproducible: see internal/dist/main.go.
DIST ?= dist
dist: ## build release archives for linux and darwin, amd64 and arm64, and SHA256SUMS into $(DIST)/
	rm -rf "$(DIST)"
	$(GO) run ./internal/dist -out "$(DIST)" -version "$(VERSION)" -commit "$(COMMIT)"

# The image is tagged sharevat:<VERSION> (a tag cannot hold "+": "+dirty"
# becomes "-dirty") and sharevat:latest; its binary is stamped the same.
IMAGE ?= sharevat
docker: ## build the Docker image $(IMAGE):$(VERSION)
	docker build --build-arg VERSION="$(VERSION)" --build-arg COMMIT="$(COMMIT)" \
		-t "$(IMAGE):$(subst +,-,$(VERSION))" -t "$(IMAGE):latest" .

run: build ## run the vat on ./sharevat-data, listening on 127.0.0.1:7420 (the process is the server: Ctrl-C or kill stops it)
	exec bin/sharevat serve

test: ## run every test with the race detector, then say which suites were skipped for a missing toolchain (what CI runs)
	$(GO) run ./internal/testall

check: ## gofmt, go vet, staticcheck
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) tool staticcheck $(PKGS)

# go-licenses (Google's license checker, pinned) classifies the license
# of every module a package of the repository imports, tests included:
# notice, permissive, unencumbered and reciprocal licenses allow
# redistribution; forbidden, restricted (GPL-like, which an MIT binary
# cannot carry) and unknown (no license file found) fail. Its per-package
# warnings print only when the check fails.
GO_LICENSES := github.com/google/go-licenses@v1.6.0
licenses: ## check that every Go dependency's license allows redistribution
	@out=$$($(GO) run $(GO_LICENSES) check --include_tests --disallowed_types=forbidden,restricted,unknown ./... 2>&1) \
		|| { echo "$$out"; echo "a dependency's license does not allow redistribution (or none was found)"; exit 1; }
	@echo "licenses: every dependency's license allows redistribution"

generate: ## regenerate schema/*.capnp.go and interop/gen (needs capnp: apt-get install capnproto; and interop/node_modules)
	cd schema && $(GO) generate
	@if [ -d interop/node_modules ]; then cd interop && npm run --silent generate; \
	else echo "interop/node_modules missing: run (cd interop && npm ci) to regenerate interop/gen"; fi

check-generate: generate ## fail if the committed generated code is stale
	@git diff --exit-code -- schema/ interop/gen/ || { echo "generated code is stale: run 'make generate' and commit"; exit 1; }

stress: ## run the rpc and vat tests many times
	$(GO) test -race -count=20 ./rpc/ ./vat/

# Every fuzz target of the repo, as package:Target; `make fuzz` runs each
# for FUZZTIME (its seed corpus, testdata/fuzz/<Target>, runs in every
# `go test`). Add a new target here.
FUZZTIME ?= 10s
FUZZ_TARGETS := sturdyref:FuzzParse rpc:FuzzDecode wire:FuzzReadBatch cmd/sharevat:FuzzParseOps privacy:FuzzRedact opencodeshare:FuzzParseSync rpc/engine:FuzzEngineMessages

fuzz: ## run every fuzz target for FUZZTIME each (default 10s)
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "== $${t##*:} in ./$${t%%:*} for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$${t##*:}\$$" -fuzztime $(FUZZTIME) ./$${t%%:*}/; \
	done

bench: ## Go benchmarks
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)
