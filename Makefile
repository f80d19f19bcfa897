# Neuralis package services. `make help` lists the targets.
SHELL := /bin/bash
CARGO ?= cargo

.PHONY: help run test test-unit lint fmt bench build

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

run: ## the main job: inspect the bundled sample source (the all-in-one demo grows here)
	$(CARGO) run --quiet -p neuralis -- inspect tests/fixtures/example-source

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
