#!/usr/bin/env bash
# Makes sure a Rust toolchain that can build wasm32-wasip2 components exists,
# then prints the cargo arguments that build with it (one per line).
#
#   rustup   - rustup's wasm32-wasip2 std (preferred: installed, or added quickly)
#   fallback - Debian's Rust + its std sources, std rebuilt with -Z build-std
#
# WASM_TOOLCHAIN=fallback forces the second path (CI-like check of the fallback);
# WASM_TOOLCHAIN=rustup forbids it. Idempotent: when ready it takes well under a second.
set -euo pipefail
cd "$(dirname "$0")/.."

target=wasm32-wasip2
mode=${WASM_TOOLCHAIN:-auto}
log() { echo "wasm-toolchain: $*" >&2; }

rustup_target_ready() {
    local libdir
    libdir=$(rustc --print target-libdir --target "$target" 2>/dev/null) || return 1
    compgen -G "$libdir/libstd-*.rlib" >/dev/null
}

fallback_ready() {
    [ -x /usr/bin/rustc ] && /usr/bin/rustc --print target-list 2>/dev/null | grep -qx "$target" &&
        [ -d /usr/lib/rustlib/src/rust/library ] && [ -f /usr/lib/wasm32-wasi/libc.a ] &&
        [ -x /usr/lib/llvm-22/bin/wasm-ld ]
}

install_fallback() {
    log "installing Debian's Rust toolchain for the build-std fallback"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq >&2
    $sudo apt-get install -y -qq --no-install-recommends rustc-web cargo-web rust-web-src wasi-libc lld-22 >&2
}

# The linker wrapper that turns the wasm module into a component. Some builds
# of Debian's rustc ship it in their sysroot, rustup's toolchains always do;
# otherwise it is built from the Rust package registry into the repository's target dir.
find_component_ld() {
    local candidate sysroot
    for sysroot in "$(/usr/bin/rustc --print sysroot 2>/dev/null)" "$(rustc --print sysroot 2>/dev/null)"; do
        [ -n "$sysroot" ] || continue
        for candidate in "$sysroot"/lib/rustlib/*/bin/wasm-component-ld; do
            [ -x "$candidate" ] && { echo "$candidate"; return 0; }
        done
    done
    candidate=$(command -v wasm-component-ld 2>/dev/null) && { echo "$candidate"; return 0; }
    candidate="$PWD/target/tools/bin/wasm-component-ld"
    if [ ! -x "$candidate" ]; then
        log "building wasm-component-ld with cargo install"
        cargo install --quiet --locked --root "$PWD/target/tools" wasm-component-ld >&2
    fi
    echo "$candidate"
}

print_fallback_args() {
    local component_ld
    component_ld=$(find_component_ld)
    # Passed per invocation, never in .cargo/config.toml: RUSTC_BOOTSTRAP there
    # would make native builds rebuild std too.
    cat <<ARGS
--config
build.rustc='/usr/bin/rustc'
--config
unstable.build-std=['std','panic_abort']
--config
target.$target.linker='$component_ld'
--config
target.$target.rustflags=['-L','/usr/lib/wasm32-wasi','-C','link-arg=--wasm-ld-path=/usr/lib/llvm-22/bin/wasm-ld']
ARGS
}

if [ "$mode" != fallback ]; then
    if rustup_target_ready; then
        echo "#mode=rustup"
        exit 0
    fi
    if command -v rustup >/dev/null; then
        log "adding the $target target with rustup"
        timeout 120 rustup target add "$target" >&2 || log "rustup target add did not finish"
        if rustup_target_ready; then
            echo "#mode=rustup"
            exit 0
        fi
    fi
    if [ "$mode" = rustup ]; then
        log "rustup's $target std is not available and WASM_TOOLCHAIN=rustup"
        exit 1
    fi
fi

fallback_ready || install_fallback
fallback_ready || { log "the fallback toolchain is incomplete"; exit 1; }
echo "#mode=fallback"
print_fallback_args
