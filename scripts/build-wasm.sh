#!/usr/bin/env bash
# Builds every component of spin.toml for wasm32-wasip2 in release mode, with
# whichever toolchain scripts/wasm-toolchain.sh set up. Outputs land where
# spin.toml's `source` fields point: target/wasm32-wasip2/release/<crate>.wasm.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t lines < <(scripts/wasm-toolchain.sh)
args=()
mode=rustup
for line in "${lines[@]}"; do
    case "$line" in
        "#mode="*) mode=${line#\#mode=} ;;
        *) args+=("$line") ;;
    esac
done

# The components are every package whose manifest sits under components/ and
# builds a cdylib; the shared library crate is pulled in as a dependency.
packages=()
for manifest in components/*/Cargo.toml; do
    grep -q 'cdylib' "$manifest" || continue
    name=$(sed -n 's/^name *= *"\(.*\)"/\1/p' "$manifest" | head -n1)
    packages+=(-p "$name")
done

# A RUSTFLAGS in the environment would replace the target rustflags above.
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS
if [ "$mode" = fallback ]; then
    export RUSTC_BOOTSTRAP=1
    unset RUSTC
fi
echo "build-wasm: building $((${#packages[@]} / 2)) components with the $mode toolchain" >&2
exec cargo "${args[@]}" build --release --target wasm32-wasip2 "${packages[@]}" "$@"
