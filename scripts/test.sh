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

part "setup and build (wasm, host, model, browser, Redis, FFmpeg)" make --no-print-directory build model setup-browser setup-redis setup-media
# The sentence model's exactness against its numpy reference is held in the
# component, under each runtime (tests/e2e/tests/sentence_model.rs);
# `cargo test -p sentence-model` holds it natively too, but builds candle a
# second time, natively, which the CI budget does not spare.
part "clients (generated SDKs)" make --no-print-directory clients
part "unit and end-to-end tests, test host" env -u SPIN cargo test "${NATIVE[@]}"
# The end-to-end test binaries for the edge pass: every one but those whose
# subject is Spin's own database (a local file's journal and upgrades, the
# runtime config's libSQL and Redis backends, the test host's libSQL client, the
# statements counted there, the deploy files, `make up`), edge.rs, which
# runs from the edge manifest in every pass, and sentence_model.rs, which runs
# its own manifest: those run from the same manifest whatever the pass, so
# they ran just before. synthesis_real.rs is left out too: on the edge it
# groups by the static table, which the unit tests run on the same real
# answers (`synthesis::builtin::real_answers`), and synthesis.rs holds the
# edge's synthesis through the API; it saves a minute and a half of the run.
edge_tests() {
    local name
    for path in tests/e2e/tests/*.rs tests/e2e/tests/*/main.rs; do
        name=${path#tests/e2e/tests/}
        name=${name%/main.rs}
        name=${name%.rs}
        case $name in
            storage | migration | redis | libsql | statements | deploy | up_script | edge | sentence_model | synthesis_real) ;;
            *) printf -- '--test=%s\n' "$name" ;;
        esac
    done
}

if [ -n "${SPIN:-}" ]; then
    part "end-to-end tests, $("$SPIN" --version | head -1)" cargo test "${NATIVE[@]}" --test '*'
    # The suite once more from the edge manifest (deploy/akamai/spin.toml: no
    # SQLite), each app's records on a sqld of its own over HTTP (E2E_EDGE),
    # the two-node tests on one shared sqld.
    if [ -n "${SQLD:-}" ]; then
        mapfile -t edge < <(edge_tests)
        part "end-to-end tests, Spin, edge manifest, records over HTTP" env E2E_EDGE=1 cargo test "${NATIVE[@]}" "${edge[@]}"
    else
        echo "make test: no sqld beside SPIN (or SQLD): the edge pass is left out"
    fi
fi
part "contract fuzzer" make --no-print-directory fuzz

echo "make test: every part passed"
printf '  %s\n' "${summary[@]}"
