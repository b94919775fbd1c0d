#!/usr/bin/env bash
# `make test`: every part in order, each timed, with a summary of the times at
# the end (the README's table of what a run costs comes from it). SPIN set: the
# end-to-end suite runs once more under the real Spin.
set -euo pipefail
cd "$(dirname "$0")/.."
NATIVE=(-p api-core -p spin-host -p e2e)
summary=()

part() {
    local name=$1
    shift
    local start=$SECONDS
    echo "make test: $name"
    "$@"
    summary+=("$(printf '%-48s %4d s' "$name" $((SECONDS - start)))")
}

part "setup and build (wasm, host, browser, Redis, FFmpeg)" make --no-print-directory build setup-browser setup-redis setup-media
part "clients (generated SDKs)" make --no-print-directory clients
part "unit and end-to-end tests, test host" env -u SPIN cargo test "${NATIVE[@]}"
if [ -n "${SPIN:-}" ]; then
    part "end-to-end tests, $("$SPIN" --version | head -1)" cargo test "${NATIVE[@]}" --test '*'
fi
part "contract fuzzer" make --no-print-directory fuzz

echo "make test: every part passed"
printf '  %s\n' "${summary[@]}"
