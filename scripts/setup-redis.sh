#!/usr/bin/env bash
# Makes sure a Redis server exists for the tests that run the app with a Redis
# key-value store (tests/e2e/tests/redis.rs): Debian's redis-server and
# redis-tools (giving /usr/bin/redis-server and /usr/bin/redis-cli). The tests
# start their own server on a free loopback port and stop it; they never use a
# system-wide one (on a machine with systemd, Debian's package also starts its
# own service on port 6379: the tests leave it alone).
#
# REDIS_SERVER / REDIS_CLI point the tests at other binaries; when both are set
# and executable nothing is installed. Idempotent: when ready it is silent and
# takes well under a second.
set -euo pipefail

server=${REDIS_SERVER:-/usr/bin/redis-server}
cli=${REDIS_CLI:-/usr/bin/redis-cli}
log() { echo "setup-redis: $*" >&2; }

ready() { [ -x "$server" ] && [ -x "$cli" ]; }

ready && exit 0

"$(dirname "$0")/apt-install.sh" setup-redis "install Redis (redis-server, redis-cli) yourself, then set REDIS_SERVER and REDIS_CLI" redis-server redis-tools

ready || { log "$server or $cli is still missing after the install"; exit 1; }
log "ready: $("$server" --version 2>/dev/null | head -n1 || echo redis-server)"
