# The two commands: `make up` serves the API on 127.0.0.1:3000, `make test` runs
# every test. Both set up what they need first (idempotent, seconds when done).
# SPIN=/path/to/spin selects the real Spin CLI: `make up` and `make bench` run
# under it, `make test` runs the end-to-end suite under it too.
SHELL := /bin/bash
LISTEN ?= 127.0.0.1:3000
STATE_DIR ?= .spin
# The native crates, always built together: building a subset would resolve
# dependency features differently and rebuild wasmtime and friends.
NATIVE := -p text-enum -p text -p platform -p storage -p pipeline -p tenants-core -p webhooks-core -p files-core -p projects-core -p sealing -p records -p synthesis -p sessions-core -p interviews-core -p maintenance-core -p spin-host -p e2e
# libSQL's server, for the suites that put the database on it (two_nodes,
# libsql, deploy): SQLD, else the sqld beside SPIN (../shared/runtime/install.sh
# unpacks both); without it those tests say so and skip.
SQLD ?= $(if $(SPIN),$(wildcard $(dir $(SPIN))sqld))
export SQLD

.PHONY: up test build wasm host unit e2e fuzz bench clean setup setup-browser setup-redis setup-media clients model

setup:
	@scripts/wasm-toolchain.sh >/dev/null

# Only the tests need a browser (Debian's Chromium and ChromeDriver).
setup-browser:
	@scripts/setup-browser.sh

# Only the tests need a Redis server (Debian's redis-server and redis-tools).
setup-redis:
	@scripts/setup-redis.sh

# Only the tests need ffprobe and ffmpeg (Debian's ffmpeg): does an exported
# recording play end to end?
setup-media:
	@scripts/setup-media.sh

# spin.toml mounts the sentence model's files into the maintenance and
# operator components: they are fetched once into target/models.
wasm: setup
	@scripts/setup-model.sh
	scripts/build-wasm.sh

# The component that runs the sentence model from its files mount
# (tests/fixtures/bench-embed), which `make build` leaves out: the tests of
# the model need it.
model: wasm
	scripts/build-wasm.sh -p bench-embed

host:
	cargo build $(NATIVE)

build: wasm host

up: build
	@scripts/up.sh "$(LISTEN)" "$(STATE_DIR)"

unit:
	cargo test $(NATIVE) --lib

# The end-to-end suite under the selected runtime (SPIN set: the real Spin).
e2e: build model setup-browser setup-redis setup-media
	cargo test $(NATIVE) --test '*'

# Every test under the test host; with SPIN set, the end-to-end suite (README
# and browser tests included) once more under the real Spin; then the
# contract fuzzer (`make fuzz`, below). Each part is timed (scripts/test.sh).
test:
	@scripts/test.sh

# The API's clients generated from the OpenAPI document into target/clients
# (Python: openapi-python-client; TypeScript: openapi-typescript, compiled with
# tsc --strict against tests/clients/workflow.ts); fails on any generator
# warning. Installs the generators when missing; 10 to 20 seconds then.
clients:
	scripts/clients.sh

# The OpenAPI document proven by a fuzzer: schemathesis (pinned, installed in
# target/fuzz-venv), every check, against the built components with a seeded
# tenant; about 4 minutes. Reports in target/fuzz-report.
fuzz: build
	scripts/fuzz.sh

# Builds what it needs itself (wasm with the anchor components, an optimised host).
# BENCH_ARGS go to the driver, e.g. BENCH_ARGS='--database libsql' (docs/deploy.md).
bench: setup
	scripts/bench.sh $(BENCH_ARGS)

clean:
	cargo clean
	rm -rf .spin
