#!/usr/bin/env bash
# make fuzz: proves the OpenAPI document with a fuzzer (schemathesis, every
# check) against the built components served by the test host.
#
# Expects `make build` done (the Makefile target depends on it). Installs the
# pinned schemathesis into target/fuzz-venv (once, with the project's other
# Python tools: scripts/setup-python-tools.sh), starts the host on a free
# port with fresh state, seeds a tenant and one real resource per path
# parameter through the API (scripts/fuzz/seed.py), runs schemathesis with the
# tenant's credentials and those ids, and stops the host whatever happens.
# Exits non-zero on any failure: a 5xx, a response the document does not
# describe, a documented rule the server does not enforce, ...
#
# Knobs (environment): FUZZ_MAX_TIME (seconds of schemathesis, default 200),
# FUZZ_MAX_EXAMPLES (per operation and phase, default 60), FUZZ_WORKERS
# (default 1: with 2 workers, hypothesis's source inspection in threads hits
# CPython 3.11's "AST constructor recursion depth mismatch", gh-106905),
# FUZZ_SEED (a schemathesis seed, to replay a run), FUZZ_ARGS (more
# schemathesis options, e.g. "--include-operation-id update_project").
# Reports (JUnit, HAR, JSON) land in target/fuzz-report.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# hooks.py imports seed.py: no __pycache__ in the source tree.
export PYTHONDONTWRITEBYTECODE=1

venv=target/fuzz-venv
report_dir=target/fuzz-report
max_time=${FUZZ_MAX_TIME:-200}
max_examples=${FUZZ_MAX_EXAMPLES:-60}
workers=${FUZZ_WORKERS:-1}
started=$(date +%s)

# 1. The fuzzer, pinned in scripts/python-requirements.txt, in the virtual
#    environment under target/ (created and filled only when something is
#    missing).
scripts/setup-python-tools.sh

for file in target/debug/spin-host spin.toml; do
    [ -e "$file" ] || { echo "fuzz: $file is missing: run make build" >&2; exit 1; }
done

# 2. The service, on a free port with fresh state and throwaway credentials.
work=$(mktemp -d)
host_pid=
cleanup() {
    if [ -n "$host_pid" ] && kill -0 "$host_pid" 2>/dev/null; then
        kill "$host_pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$host_pid" 2>/dev/null || break; sleep 0.2; done
        kill -9 "$host_pid" 2>/dev/null || true
        wait "$host_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
origin="http://127.0.0.1:$port"
partner_key="sk-partner-fuzz-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
partner_tenant=$(python3 -c 'import uuid; print(uuid.uuid4())')
mkdir -p "$work/state"
host_vars=()
# The operator routes' bearer token, when this version of the app has them.
if grep -q '^maintenance_token *=' spin.toml; then
    export FUZZ_OPERATOR_TOKEN="op-fuzz-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"
    host_vars+=(--variable "maintenance_token=$FUZZ_OPERATOR_TOKEN")
fi
# Short webhook retries and timeout: the seeded delivery (to an https target
# that cannot answer 200) is failed within seconds, so it can be redelivered.
target/debug/spin-host up --from spin.toml --listen "127.0.0.1:$port" --state-dir "$work/state" \
    --variable "partner_api_key=$partner_key" \
    --variable "partner_tenant_id=$partner_tenant" \
    --variable rate_limit_per_minute=1000000 \
    --variable project_create_rate_limit_per_minute=1000000 \
    --variable session_start_rate_limit_per_minute=1000000 \
    --variable session_answer_rate_limit_per_minute=1000000 \
    --variable session_transcription_rate_limit_per_minute=1000000 \
    --variable recording_bytes_per_minute=1000000000000 \
    --variable webhook_allow_insecure_targets=false \
    --variable webhook_retry_base_seconds=0,0 \
    --variable webhook_timeout_seconds=2 \
    "${host_vars[@]}" >"$work/host.log" 2>&1 &
host_pid=$!

for _ in $(seq 1 300); do
    if ! kill -0 "$host_pid" 2>/dev/null; then
        echo "fuzz: the host exited:" >&2; cat "$work/host.log" >&2; exit 1
    fi
    curl -fsS -o /dev/null "$origin/v1/openapi.json" 2>/dev/null && break
    sleep 0.2
done
curl -fsS -o /dev/null "$origin/v1/openapi.json" || { echo "fuzz: the host does not answer" >&2; cat "$work/host.log" >&2; exit 1; }

# 3. A tenant and real ids; writes schemathesis.toml and seed.json.
"$venv/bin/python" scripts/fuzz/seed.py "$origin" "$partner_key" "$partner_tenant" "$work" ||
    { echo "fuzz: seeding failed; the host's log ends with:" >&2; tail -20 "$work/host.log" >&2; exit 1; }

# 4. The fuzzer: every phase (examples, coverage, fuzzing, stateful), every check.
rm -rf "$report_dir"
mkdir -p "$report_dir"
extra_args=()
[ -n "${FUZZ_SEED:-}" ] && extra_args+=(--seed "$FUZZ_SEED")
# Every operation: schemathesis leaves out the one that served the document
# (GET /v1/openapi.json) unless a filter names it.
[[ "${FUZZ_ARGS:-}" == *--include* ]] || extra_args+=(--include-path-regex '^/')
status=0
# shellcheck disable=SC2086 # FUZZ_ARGS is a list of options
(cd "$work" && FUZZ_SEED_FILE="$work/seed.json" "$root/$venv/bin/schemathesis" \
    --config-file "$work/schemathesis.toml" \
    run "$origin/v1/openapi.json" \
    --checks all \
    --workers "$workers" \
    --max-examples "$max_examples" \
    --max-time "$max_time" \
    --continue-on-failure \
    --request-timeout 60 \
    --generation-database none \
    --report junit,har,json --report-dir "$root/$report_dir" \
    "${extra_args[@]}" ${FUZZ_ARGS:-}) || status=$?

# 5. The figures, and what the host logged about failing requests.
"$venv/bin/python" scripts/fuzz/summary.py "$work/openapi.json" "$report_dir"
echo "fuzz: schemathesis exit status $status, $(($(date +%s) - started)) s in all; reports in $report_dir"
cp "$work/host.log" "$report_dir/host.log"
traps=$(grep -ciE 'trap|panick' "$work/host.log" || true)
[ "$traps" = 0 ] || { echo "fuzz: the host logged $traps traps or panics; the last ones:"; grep -iE 'trap|panick' "$work/host.log" | tail -5; }
exit "$status"
