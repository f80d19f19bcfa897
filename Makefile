# Neuralis package services. `make help` lists the targets.
SHELL := /bin/bash
CARGO ?= cargo

.PHONY: help run test test-all lint proto-lint fmt bench chart chart-golden dockerfile image mutants

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

run: ## the main job: the all-in-one server on the embedded store, syncing the sample source and listing its packages
	$(CARGO) run --quiet -p neuralis -- demo tests/fixtures/example-source

# A whole-suite build from a clean clone gains nothing from rustc's incremental caches,
# which would nearly double target/ on disk; CI builds on the disk the session used.
test: export CARGO_INCREMENTAL ?= 0
test: ## the whole suite: lint, unit, property, integration (starts Redis/PostgreSQL if absent)
	bash tests/support/with-services.sh $(MAKE) --no-print-directory test-all

test-all: lint proto-lint chart dockerfile
	$(CARGO) test --workspace --all-targets --locked

chart: ## render the chart with Helm's engine for every helm/ci/*-values.yaml: strict lint, kubernetes-validate, golden renders
	bash tests/support/python-tools.sh python helm/ci/check.py

chart-golden: ## rewrite helm/ci/golden/ from the current chart (review the diff)
	UPDATE_GOLDEN=1 bash tests/support/python-tools.sh python helm/ci/check.py

dockerfile: ## hadolint the Dockerfile
	bash tests/support/python-tools.sh hadolint Dockerfile

IMAGE ?= ghcr.io/example/neuralis:dev
image: ## build the container image (needs a running docker engine)
	@docker info >/dev/null 2>&1 || { echo "make image: no docker engine answers (docker info failed); start one, or build elsewhere from this Dockerfile" >&2; exit 1; }
	docker build -t $(IMAGE) .

lint: ## cargo fmt --check and clippy -D warnings
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

proto-lint: ## buf lint (STANDARD and COMMENTS) and buf breaking against proto/baseline.binpb (the previous release); installs @bufbuild/buf into target/tools/npm once
	bash tests/support/buf.sh lint
	bash tests/support/buf.sh breaking --against proto/baseline.binpb

fmt: ## format the code
	$(CARGO) fmt --all

bench: ## criterion benchmarks (numbers go to BENCHMARKS.md)
	$(CARGO) bench --workspace

mutants: ## mutation testing of the pure crates, one by one (slow; not part of `make test`; CRATES="access layout" for some)
	bash tests/support/mutants.sh $(CRATES)
