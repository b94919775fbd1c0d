#!/usr/bin/env bash
# `make test`: every part in order, each timed, with a summary of the times at
# the end (the README's table of what a run costs comes from it). SPIN set: the
# end-to-end suite runs once more under the real Spin.
set -euo pipefail
cd "$(dirname "$0")/.."
NATIVE=(-p text-enum -p text -p platform -p storage -p pipeline -p tenants-core -p webhooks-core -p files-core -p projects-core -p sealing -p records -p synthesis -p sessions-core -p interviews-core -p maintenance-core -p spin-host -p e2e)
summary=()

part() {
    local name=$1
    shift
    local start=$SECONDS
    echo "make test: $name"
    "$@"
    summary+=("$(printf '%-48s %4d s' "$name" $((SECONDS - start)))")
}

# What the tests need besides the build (Chromium, Redis, FFmpeg, the Python
# and Node tools, then the generated clients, which read the OpenAPI file, not
# a server) installs beside the compiler: apt, pip and npm wait on the network
# and the disk, cargo on the CPU. The wasm toolchain and the model's files come
# first, in the foreground: they may use apt too.
part "no import cycle between a crate's files" python3 scripts/import-cycles.py
make --no-print-directory setup
scripts/setup-model.sh
beside_log=$(mktemp)
(
    set -e
    start=$SECONDS
    make --no-print-directory setup-browser setup-redis setup-media
    echo "beside the build: setup took $((SECONDS - start)) s"
    start=$SECONDS
    make --no-print-directory clients
    echo "beside the build: clients took $((SECONDS - start)) s"
) >"$beside_log" 2>&1 &
beside=$!
part "build (wasm, host, model)" make --no-print-directory build model
part "setup and clients (beside the build; the rest of their time)" wait "$beside" || {
    cat "$beside_log"
    exit 1
}
cat "$beside_log"
# The sentence model's exactness against its numpy reference is held in the
# component, under each runtime (tests/e2e/tests/sentence_model.rs);
# `cargo test -p sentence-model` holds it natively too, but builds candle a
# second time, natively, which the CI budget does not spare.

# The page's two slow tests spend a minute and a half waiting out a throttled,
# dropping connection and a recording in real time, with the CPU idle: in each
# pass they run beside the rest (`e2e_pass`).
SLOW_PAGE_TESTS=(an_interview_completes_on_a_slow_connection_that_drops a_recording_survives_a_reload_and_exports_as_one_file_that_plays_both_parts)
e2e_pass() {
    local -n run=$1 # the command up to `cargo test -p ...`; then the rest's targets
    shift
    local log status=0
    log=$(mktemp)
    # Built first: compiling beside the slow tests would starve the browser.
    "${run[@]}" "$@" --no-run
    "${run[@]}" --test interviewee_page -- --exact "${SLOW_PAGE_TESTS[@]}" >"$log" 2>&1 &
    local page=$!
    "${run[@]}" "$@" -- "${SLOW_PAGE_TESTS[@]/#/--skip=}" || status=$?
    wait "$page" || status=$?
    echo "make test: the page's slow tests, beside the rest:"
    cat "$log"
    return "$status"
}

host_run=(env -u SPIN cargo test "${NATIVE[@]}")
part "unit and end-to-end tests, test host" e2e_pass host_run
# The end-to-end test binaries for the edge pass. Its subject is the records
# on libSQL over HTTP, so it leaves out the tests whose subject is something
# else: Spin's own database (a local file's journal and upgrades, the runtime
# config's libSQL and Redis backends, the test host's libSQL client, the
# statements counted there, the deploy files, `make up`); what a browser shows
# and what the documents say (the pages, the report, the README, the OpenAPI
# document, the generated clients, the error texts), which ran in the pass just
# before from the same components; edge.rs, which runs from the edge manifest
# in every pass, and sentence_model.rs, which runs its own manifest.
# synthesis_real.rs is left out too: on the edge it groups by the static table,
# which the unit tests run on the same real answers
# (`synthesis::builtin::real_answers`), and synthesis.rs holds the edge's
# synthesis through the API.
edge_tests() {
    local name
    for path in tests/e2e/tests/*.rs tests/e2e/tests/*/main.rs; do
        name=${path#tests/e2e/tests/}
        name=${name%/main.rs}
        name=${name%.rs}
        case $name in
            storage | migration | redis | libsql | statements | deploy | up_script) ;;
            browser | interviewee_page | synthesis_report | docs | openapi | clients | error_messages) ;;
            edge | sentence_model | synthesis_real) ;;
            *) printf -- '--test=%s\n' "$name" ;;
        esac
    done
}

if [ -n "${SPIN:-}" ]; then
    spin_run=(cargo test "${NATIVE[@]}")
    part "end-to-end tests, $("$SPIN" --version | head -1)" e2e_pass spin_run --test '*'
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
