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

"$(dirname "$0")/apt-install.sh" setup-browser "install Chromium and ChromeDriver yourself, then set CHROMIUM and CHROMEDRIVER" chromium chromium-driver

ready || { log "$chromium or $chromedriver is still missing after the install"; exit 1; }
log "ready: $("$chromium" --version 2>/dev/null || echo chromium), $("$chromedriver" --version 2>/dev/null | head -n1 || echo chromedriver)"
