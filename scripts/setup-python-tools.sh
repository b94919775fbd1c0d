#!/usr/bin/env bash
# Makes sure the project's Python virtual environment (target/fuzz-venv) has
# every tool pinned in scripts/python-requirements.txt: schemathesis for
# `make fuzz`, openapi-python-client for `make clients`. Creates the
# environment when it is missing or broken (with Debian's python3-venv first
# when `python3 -m venv` lacks it) and installs what is missing or at another
# version, in place. Idempotent: when ready it is silent and takes a fraction
# of a second.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/fuzz-venv
requirements=scripts/python-requirements.txt
log() { echo "setup-python-tools: $*" >&2; }

# Every pin installed at its version (packaging parses the requirement lines).
ready() {
    "$venv/bin/python" - "$requirements" 2>/dev/null <<'PY'
import importlib.metadata, sys
from packaging.requirements import Requirement
for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if line:
        requirement = Requirement(line)
        if not requirement.specifier.contains(importlib.metadata.version(requirement.name)):
            sys.exit(1)
PY
}

ready && exit 0

if ! "$venv/bin/python" -c 'import pip' 2>/dev/null; then
    scripts/setup-python-venv.sh
    log "creating $venv"
    python3 -m venv --clear "$venv"
fi
log "installing $(grep -v '^#' "$requirements" | xargs) into $venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
ready || { log "$venv still lacks a pinned version after the install"; exit 1; }
