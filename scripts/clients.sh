#!/usr/bin/env bash
# make clients: generates the API's clients from the OpenAPI document as an API
# user would, and fails on anything a user would trip over.
#
#   scripts/clients.sh                      both clients, from components/pipeline/openapi.json
#   scripts/clients.sh python DOCUMENT DIR  the Python client only, from a file or
#                                           URL (the end-to-end test passes the
#                                           running service's GET /v1/openapi.json)
#
# Python: openapi-python-client (pinned in scripts/python-requirements.txt,
# installed into target/fuzz-venv by scripts/setup-python-tools.sh) with the
# settings in tests/clients/openapi-python-client.yaml, into
# target/clients/python (a package: `pip install target/clients/python`).
# TypeScript: openapi-typescript (pinned with typescript and openapi-fetch in
# tests/clients/package-lock.json, installed by `npm ci`; Debian's nodejs and
# npm first when there is no node) into target/clients/typescript/schema.d.ts,
# then `tsc --strict` on tests/clients/workflow.ts against those types.
#
# Fails when a generator warns about anything (a skipped endpoint, an omitted
# response, a schema it cannot read): each generator's output may hold only
# its usual progress lines. Setup is idempotent; once installed, both clients
# take 10 to 20 seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
what=${1:-all}
venv=target/fuzz-venv
clients=tests/clients
log() { echo "clients: $*" >&2; }

# Runs a generator and fails unless every line it printed matches the pattern
# of its usual progress lines (extended regex).
generate() {
    local name=$1 usual=$2 status=0 output
    shift 2
    output=$("$@" 2>&1) || status=$?
    local unusual
    unusual=$(grep -Ev "$usual" <<<"$output" | grep -v '^[[:space:]]*$' || true)
    if [ "$status" != 0 ] || [ -n "$unusual" ]; then
        echo "$output" >&2
        log "$name: exit status $status; it said more than its usual progress lines (above): fix the document"
        exit 1
    fi
}

python_client() {
    local document=$1 out=$2 source=(--path "$1")
    scripts/setup-python-tools.sh
    [[ "$document" == http://* || "$document" == https://* ]] && source=(--url "$document")
    mkdir -p "$(dirname "$out")"
    # The generator formats its output with ruff, from the same environment.
    PATH="$root/$venv/bin:$PATH" generate openapi-python-client '^Generating ' \
        "$venv/bin/python" -m openapi_python_client generate "${source[@]}" --output-path "$out" --overwrite \
        --config "$clients/openapi-python-client.yaml" --fail-on-warning
    # Every generated module imports (the generator can write code that does
    # not: a request body of several types, in 0.29).
    PYTHONPATH="$out" "$venv/bin/python" - <<'PY' || { log "python: the generated client does not import"; exit 1; }
import importlib, pkgutil
import interview_research_service_client as package
for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
    importlib.import_module(module.name)
PY
    log "python: $out"
}

typescript_client() {
    local out=target/clients/typescript
    if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
        scripts/apt-install.sh clients "install Node.js 18 or later with npm yourself" nodejs npm
    fi
    # npm ci only when node_modules is not what package-lock.json pins (npm
    # keeps a copy of the lock it installed as node_modules/.package-lock.json).
    if ! node -e '
        const [lock, installed] = process.argv.slice(1).map((file) => require(file).packages);
        for (const [path, entry] of Object.entries(lock)) {
            if (path && !(installed[path] && installed[path].version === entry.version)) process.exit(1);
        }' "$root/$clients/package-lock.json" "$root/$clients/node_modules/.package-lock.json" 2>/dev/null; then
        log "npm ci in $clients"
        (cd "$clients" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    fi
    mkdir -p "$out"
    generate openapi-typescript '^✨ openapi-typescript [0-9.]+$|^🚀 .* → .* \[[0-9.]+m?s\]$' \
        "$clients/node_modules/.bin/openapi-typescript" components/pipeline/openapi.json -o "$out/schema.d.ts"
    generate tsc '^$' "$clients/node_modules/.bin/tsc" -p "$clients/tsconfig.json"
    log "typescript: $out/schema.d.ts (tests/clients/workflow.ts compiles against it with tsc --strict)"
}

case "$what" in
    all)
        started=$(date +%s)
        python_client components/pipeline/openapi.json target/clients/python
        typescript_client
        log "both clients generated without a warning in $(($(date +%s) - started)) s"
        ;;
    python)
        [ $# = 3 ] || { echo "usage: scripts/clients.sh python DOCUMENT DIR" >&2; exit 2; }
        python_client "$2" "$3"
        ;;
    *)
        echo "usage: scripts/clients.sh [python DOCUMENT DIR]" >&2
        exit 2
        ;;
esac
