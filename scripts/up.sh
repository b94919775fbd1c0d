#!/usr/bin/env bash
# Serves the app: with the Spin CLI that SPIN names, else with `spin` when it is
# on PATH, otherwise with the project's own Spin-compatible host. Prints the dev
# partnership key.
set -euo pipefail
cd "$(dirname "$0")/.."
listen=${1:-127.0.0.1:3000}
state_dir=${2:-.spin}
mkdir -p "$state_dir"

# A development partnership key, made once and kept with the local data so
# that tenants created earlier stay reachable with the same key.
key_file="$state_dir/dev-partner-key"
tenant_file="$state_dir/dev-partner-tenant-id"
[ -s "$key_file" ] || echo "sk-partner-dev-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" >"$key_file"
[ -s "$tenant_file" ] || cat /proc/sys/kernel/random/uuid >"$tenant_file"
export SPIN_VARIABLE_PARTNER_API_KEY="${SPIN_VARIABLE_PARTNER_API_KEY:-$(cat "$key_file")}"
export SPIN_VARIABLE_PARTNER_TENANT_ID="${SPIN_VARIABLE_PARTNER_TENANT_ID:-$(cat "$tenant_file")}"

cat <<INFO
Development partnership credentials (for POST /v1/tenants):
  X-Api-Key:   $SPIN_VARIABLE_PARTNER_API_KEY
  X-Tenant-Id: $SPIN_VARIABLE_PARTNER_TENANT_ID
INFO

spin=${SPIN:-$(command -v spin || true)}
if [ -n "$spin" ]; then
    echo "Serving with $("$spin" --version)"
    if "$spin" plugins list --installed 2>/dev/null | grep -q '^trigger-cron'; then
        exec "$spin" up --from spin.toml --listen "$listen" --state-dir "$state_dir"
    fi
    # Without the cron plugin, `spin up` cannot start the cron component: run the
    # HTTP components only, and say how maintenance runs then (docs/deploy.md).
    mapfile -t http_components < <(awk '/^\[\[trigger\./ { http = ($0 == "[[trigger.http]]") }
        http && /^component *=/ { gsub(/.*= *"|"/, ""); print }' spin.toml | sort -u)
    args=()
    for component in "${http_components[@]}"; do args+=(-c "$component"); done
    cat <<NOTE
The trigger-cron plugin is not installed: serving the HTTP components only.
Idle interviews and webhook deliveries then wait for POST /v1/maintenance/run:
set SPIN_VARIABLE_MAINTENANCE_TOKEN and call it every minute, or install the
plugin (spin plugins install trigger-cron).
NOTE
    exec "$spin" up --from spin.toml --listen "$listen" --state-dir "$state_dir" "${args[@]}"
fi
exec target/debug/spin-host up --from spin.toml --listen "$listen" --state-dir "$state_dir"
