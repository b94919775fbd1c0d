#!/usr/bin/env bash
# Packs what `make bench` needs into target/bench-pack, for a machine that has
# no toolchain and no registry (a many-core machine lent for the scale-up
# table): the components and the two anchors, the bench driver, the Spin CLI
# with its cron plugin (SPIN, else spin on PATH), and wrk with its LuaJIT.
# Everything is xz-compressed (about 50 MB); the sentence model is left out,
# since no table but the synthesis' embeds (its mount is made empty there).
#
#   scripts/bench-pack.sh                # here: build and pack
#   bash target/bench-pack/run.sh --cores 12 --seconds 4 --rounds 3   # there, in a copy of the repo
#
# run.sh unpacks into the copy it runs in and execs the driver under Spin with
# the arguments given, in that copy (E2E_WORKSPACE_ROOT).
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/bench-pack
spin=${SPIN:-$(command -v spin || true)}
[ -x "$spin" ] || { echo "bench-pack: set SPIN=/path/to/spin (or put spin on PATH)" >&2; exit 2; }
plugins="$("$spin" plugins list --installed >/dev/null 2>&1 && echo "${XDG_DATA_HOME:-$HOME/.local/share}/spin/plugins")"
[ -d "$plugins/trigger-cron" ] || { echo "bench-pack: the trigger-cron plugin is not installed for $spin" >&2; exit 2; }

scripts/bench-build.sh

rm -rf "$out" && mkdir -p "$out/bin" "$out/lib"
components=$(sed -n 's|^source = "target/wasm32-wasip2/release/\(.*\.wasm\)"|\1|p' spin.toml)
# shellcheck disable=SC2086 # one name per component
tar -C target/wasm32-wasip2/release -cf - $components bench_hello.wasm bench_select.wasm | xz -9 -T0 >"$out/wasm.tar.xz"
xz -9 -T0 -c target/bench-host/bench >"$out/bench.xz"
xz -9 -T0 -c "$spin" >"$out/spin.xz"
tar -C "$(dirname "$plugins")" -cf - plugins | xz -9 -T0 >"$out/plugins.tar.xz"
cp "$(command -v wrk)" "$out/bin/"
cp -L "$(ldd "$(command -v wrk)" | awk '/libluajit/ {print $3}')" "$out/lib/"

cat >"$out/run.sh" <<EOF
#!/usr/bin/env bash
# Unpacks what scripts/bench-pack.sh packed and runs the bench driver under Spin.
set -euo pipefail
cd "\$(dirname "\$0")/../.."
pack=\$PWD/$out
unxz_to() { if command -v xz >/dev/null; then xz -dc "\$1" >"\$2"; else python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "\$1" "\$2"; fi; }
mkdir -p target/wasm32-wasip2/release target/bench-host target/models/all-minilm-l6-v2 "\$pack/spin/bin"
unxz_to "\$pack/wasm.tar.xz" "\$pack/wasm.tar" && tar -C target/wasm32-wasip2/release -xf "\$pack/wasm.tar"
unxz_to "\$pack/bench.xz" target/bench-host/bench && chmod +x target/bench-host/bench
unxz_to "\$pack/spin.xz" "\$pack/spin/bin/spin" && chmod +x "\$pack/spin/bin/spin"
data=\${XDG_DATA_HOME:-\$HOME/.local/share}/spin
mkdir -p "\$data" && unxz_to "\$pack/plugins.tar.xz" "\$pack/plugins.tar" && tar -C "\$data" -xf "\$pack/plugins.tar"
export PATH=\$pack/bin:\$PATH LD_LIBRARY_PATH=\$pack/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
echo "bench-pack: \$(nproc) cores; \$("\$pack/spin/bin/spin" --version)" >&2
E2E_WORKSPACE_ROOT=\$PWD SPIN=\$pack/spin/bin/spin exec target/bench-host/bench --runtime spin "\$@"
EOF
chmod +x "$out/run.sh"
du -sh "$out" | sed 's/^/bench-pack: /' >&2
