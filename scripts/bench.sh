#!/usr/bin/env bash
# Benchmarks against the built components (release build of the bench driver
# and host, so the numbers reflect the components, not a debug host).
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --profile bench-host -p e2e --bin bench
