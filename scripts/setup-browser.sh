#!/usr/bin/env bash
# Makes sure the headless browser for the browser tests exists: Debian's
# Chromium and ChromeDriver (packages chromium and chromium-driver, giving
# /usr/bin/chromium and /usr/bin/chromedriver). The tests drive Chromium through
# ChromeDriver's W3C WebDriver API (tests/e2e/src/webdriver.rs).
#
# CHROMIUM / CHROMEDRIVER point the tests at other binaries; when both are set
# and executable nothing is installed. Idempotent: when ready it is silent and
# takes well under a second.
set -euo pipefail

chromium=${CHROMIUM:-/usr/bin/chromium}
chromedriver=${CHROMEDRIVER:-/usr/bin/chromedriver}
log() { echo "setup-browser: $*" >&2; }

ready() { [ -x "$chromium" ] && [ -x "$chromedriver" ]; }

ready && exit 0

if ! command -v apt-get >/dev/null; then
    log "no apt-get here: install Chromium and ChromeDriver yourself, then set CHROMIUM and CHROMEDRIVER"
    exit 1
fi

log "installing Debian's chromium and chromium-driver"
sudo=""
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
# Wait for another apt/dpkg run (instead of failing at once on its lock).
lock=(-o DPkg::Lock::Timeout=600)
# apt and dpkg are chatty: their output is shown only when they fail.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! { $sudo apt-get "${lock[@]}" update -qq &&
    $sudo apt-get "${lock[@]}" install -y -qq --no-install-recommends chromium chromium-driver; } >"$out" 2>&1; then
    cat "$out" >&2
    log "the install failed"
    exit 1
fi

ready || { log "$chromium or $chromedriver is still missing after the install"; exit 1; }
log "ready: $("$chromium" --version 2>/dev/null || echo chromium), $("$chromedriver" --version 2>/dev/null | head -n1 || echo chromedriver)"
