#!/usr/bin/env bash
# scripts/apt-install.sh WHO HINT PACKAGE...: installs Debian packages for one
# of the setup steps (the browser, Redis, the load generator). The caller
# checks first whether anything is missing, so a ready machine never gets here.
# Waits for another apt/dpkg run's lock instead of failing at once; apt and
# dpkg are chatty, so their output is shown only when they fail. Without
# apt-get it fails with HINT (what to install by hand).
set -euo pipefail
who=$1
hint=$2
shift 2
log() { echo "$who: $*" >&2; }

if ! command -v apt-get >/dev/null; then
    log "no apt-get here: $hint"
    exit 1
fi
log "installing Debian's $*"
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
lock=(-o DPkg::Lock::Timeout=600)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! { $sudo apt-get "${lock[@]}" update -qq &&
    $sudo apt-get "${lock[@]}" install -y -qq --no-install-recommends "$@"; } >"$out" 2>&1; then
    cat "$out" >&2
    log "the install failed"
    exit 1
fi
