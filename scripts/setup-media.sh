#!/usr/bin/env bash
# Makes sure ffprobe and ffmpeg exist for the browser test that checks an
# exported recording plays end to end (tests/e2e/tests/browser.rs): Debian's
# ffmpeg package (giving /usr/bin/ffprobe and /usr/bin/ffmpeg).
#
# FFPROBE / FFMPEG point the tests at other binaries; when both are set and
# executable nothing is installed. Idempotent: when ready it is silent and
# takes well under a second.
set -euo pipefail

ffprobe=${FFPROBE:-/usr/bin/ffprobe}
ffmpeg=${FFMPEG:-/usr/bin/ffmpeg}
log() { echo "setup-media: $*" >&2; }

ready() { [ -x "$ffprobe" ] && [ -x "$ffmpeg" ]; }

ready && exit 0

"$(dirname "$0")/apt-install.sh" setup-media "install FFmpeg (ffprobe, ffmpeg) yourself, then set FFPROBE and FFMPEG" ffmpeg

ready || { log "$ffprobe or $ffmpeg is still missing after the install"; exit 1; }
log "ready: $("$ffprobe" -version 2>/dev/null | head -n1 || echo ffprobe)"
