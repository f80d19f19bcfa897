# Neuralis package services. `make help` lists the targets.
SHELL := /bin/bash
CARGO ?= cargo

.PHONY: help run test test-unit lint fmt bench build mutants

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

run: ## the main job: the all-in-one server on the embedded store, syncing the sample source and listing its packages
	$(CARGO) run --quiet -p neuralis -- demo tests/fixtures/example-source

test: ## the whole suite: lint, unit, property, integration (starts Redis/PostgreSQL if absent)
	bash tests/support/with-services.sh $(MAKE) --no-print-directory test-all

test-all: lint
	$(CARGO) test --workspace --all-targets --locked

lint: ## cargo fmt --check and clippy -D warnings
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

fmt: ## format the code
	$(CARGO) fmt --all

bench: ## criterion benchmarks (numbers go to BENCHMARKS.md)
	$(CARGO) bench --workspace

mutants: ## mutation testing of the pure crates, one by one (slow; not part of `make test`; CRATES="access layout" for some)
	bash tests/support/mutants.sh $(CRATES)
