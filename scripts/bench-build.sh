#!/usr/bin/env bash
# What the bench runs, built (scripts/bench.sh, scripts/bench-pack.sh): wrk,
# the components and the two anchor components (tests/fixtures/bench-*), and
# an optimised host and the driver (target/bench-host).
set -euo pipefail
cd "$(dirname "$0")/.."

# The load generator: Debian's wrk, installed once.
if ! command -v wrk >/dev/null 2>&1; then
    echo "bench: installing wrk" >&2
    scripts/apt-install.sh bench "install wrk yourself" wrk
fi
scripts/build-wasm.sh -p bench-hello -p bench-select
# The host binary and the driver in one build of the same packages as `make
# build`, so that dependency features resolve alike and wasmtime is compiled
# once for this profile.
cargo build --profile bench-host -p spin-host -p e2e --bins
