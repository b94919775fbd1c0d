#!/usr/bin/env bash
# `make bench`: builds the components and the two anchor components
# (tests/fixtures/bench-*), an optimised host and the driver, then runs the
# benchmark table (tests/e2e/src/bin/bench.rs). Arguments go to the driver:
#   scripts/bench.sh                  # under the project's spin-host; with SPIN=/path/to/spin
#                                     # under it and Spin side by side (--runtime both)
#   scripts/bench.sh --runtime spin   # only under Spin (SPIN, else spin on PATH)
#   scripts/bench.sh --seconds 2 --rounds 1 --writers-seconds 5 --projects 1000 --interviews 10000   # a quick look
#   scripts/bench.sh --only interviews --interviews 10000   # only the interviews table (list, paging, exports)
#   scripts/bench.sh --database libsql   # the app's database on libSQL (sqld: SQLD, else beside SPIN):
#                                         # statements per request, two nodes against one
#   make bench BENCH_ARGS='--database libsql'   # the same through make
#   scripts/bench.sh --only backends     # the records on the local file, Spin's libSQL and over HTTP
#                                         # side by side, then clients that go away (needs sqld)
#   scripts/bench.sh --only recordings --baseline-manifest other/spin.toml   # recording uploads and audio
#                                     # exports, beside another build's (its spin.toml next to its components)
set -euo pipefail
cd "$(dirname "$0")/.."

for arg in "$@"; do
    if [ "$arg" = spin ] || [ "$arg" = both ]; then
        if [ -z "${SPIN:-}" ] && ! command -v spin >/dev/null 2>&1; then
            echo "bench: --runtime $arg needs SPIN=/path/to/spin or the spin CLI on PATH" >&2
            exit 2
        fi
    fi
done

# spin.toml mounts the sentence model's files (the maintenance run's meanings).
scripts/setup-model.sh
scripts/bench-build.sh
exec target/bench-host/bench "$@"
