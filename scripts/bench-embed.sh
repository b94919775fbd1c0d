#!/usr/bin/env bash
# What the sentence model costs inside a component (tests/fixtures/bench-embed)
# under the test host and, with SPIN set, under the real Spin: start, model
# load per instance, an ended interview's 30 sentences, one sentence alone,
# memory (scripts/bench-embed.py says how). Builds what it needs first.
#
#   scripts/bench-embed.sh [--rounds N]
set -euo pipefail
cd "$(dirname "$0")/.."
make --no-print-directory model host >&2
runtimes=(target/debug/spin-host)
[ -n "${SPIN:-}" ] && runtimes+=("$SPIN")
exec python3 scripts/bench-embed.py "$@" "${runtimes[@]}"
