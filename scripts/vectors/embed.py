"""Adds all-MiniLM-L6-v2's own vectors (scripts/vectors/minilm.py) of the sentences a
synthesis test listed as missing to a vectors file, so that the native tests can
group the model's meanings without the model (components/api-core/src/synthesis/
real_answers.rs, `SYNTHESIS_VECTORS`).

Usage: embed.py MODEL_DIR VECTORS_JSON   (reads VECTORS_JSON.missing)"""
import json, os, sys
from minilm import MiniLM


def main():
    model_dir, path = sys.argv[1], sys.argv[2]
    vectors = json.load(open(path)) if os.path.exists(path) else {}
    missing = [t for t in json.load(open(path + ".missing")) if t not in vectors]
    model = MiniLM(model_dir)
    for start in range(0, len(missing), 32):
        batch = sorted(set(missing[start:start + 32]))
        for text, vector in zip(batch, model.encode(batch)):
            vectors[text] = [round(float(v), 6) for v in vector]
    json.dump(vectors, open(path, "w"))
    os.remove(path + ".missing")
    print(f"{len(missing)} sentences added; {len(vectors)} in {path}")


if __name__ == "__main__":
    main()
