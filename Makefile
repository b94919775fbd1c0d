# The two commands: `make up` serves the API on 127.0.0.1:3000, `make test` runs
# every test. Both set up what they need first (idempotent, seconds when done).
SHELL := /bin/bash
LISTEN ?= 127.0.0.1:3000
STATE_DIR ?= .spin

.PHONY: up test build wasm host unit e2e bench clean setup

setup:
	@scripts/wasm-toolchain.sh >/dev/null

wasm: setup
	scripts/build-wasm.sh

host:
	cargo build -p spin-host

build: wasm host

up: build
	@scripts/up.sh "$(LISTEN)" "$(STATE_DIR)"

unit:
	cargo test -p api-core -p spin-host

e2e: build
	cargo test -p e2e -- --test-threads 4

test: build
	cargo test -p api-core -p spin-host -p e2e

bench: build
	scripts/bench.sh

clean:
	cargo clean
	rm -rf .spin
