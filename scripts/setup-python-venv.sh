#!/usr/bin/env bash
# Makes sure `python3 -m venv` works, for the fuzzer's virtual environment
# (scripts/fuzz.sh): Debian's python3 ships without the venv module's
# ensurepip, which python3-venv adds. Idempotent: when ready it is silent and
# takes well under a second.
set -euo pipefail

log() { echo "setup-python-venv: $*" >&2; }

ready() { command -v python3 >/dev/null && python3 -c 'import ensurepip, venv' 2>/dev/null; }

ready && exit 0

"$(dirname "$0")/apt-install.sh" setup-python-venv "install Python 3 with its venv module (ensurepip) yourself" python3 python3-venv

ready || { log "python3 -m venv still lacks ensurepip after the install"; exit 1; }
log "ready: $(python3 --version)"
