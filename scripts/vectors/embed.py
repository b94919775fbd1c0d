"""Adds all-MiniLM-L6-v2's own vectors (scripts/vectors/minilm.py) of the sentences a
synthesis test listed as missing to a vectors file, so that the native tests can
group the model's meanings without the model (components/synthesis/src/
real_answers.rs, `SYNTHESIS_VECTORS`).

A key of the form `sentence\x01start\x01end` is a span of the sentence (bytes): its
meaning in context, the mean of the model's token states within it, as the
maintenance run pools it (components/sentence-model, `encode_with_spans`).

Usage: embed.py MODEL_DIR VECTORS_JSON   (reads VECTORS_JSON.missing)"""
import json, os, sys
from minilm import MiniLM


def main():
    model_dir, path = sys.argv[1], sys.argv[2]
    vectors = json.load(open(path)) if os.path.exists(path) else {}
    missing = sorted(set(t for t in json.load(open(path + ".missing")) if t not in vectors))
    model = MiniLM(model_dir)
    sentences = [t for t in missing if "\x01" not in t]
    for start in range(0, len(sentences), 32):
        batch = sentences[start:start + 32]
        for text, vector in zip(batch, model.encode(batch)):
            vectors[text] = [round(float(v), 6) for v in vector]
    spans = {}
    for key in missing:
        if "\x01" in key:
            sentence, start, end = key.split("\x01")
            spans.setdefault(sentence, []).append((int(start), int(end), key))
    for sentence, wanted in spans.items():
        for (_, _, key), vector in zip(wanted, model.encode_spans(sentence, [(s, e) for s, e, _ in wanted])):
            vectors[key] = [0.0] * 384 if vector is None else [round(float(v), 6) for v in vector]
    json.dump(vectors, open(path, "w"))
    os.remove(path + ".missing")
    print(f"{len(missing)} sentences added; {len(vectors)} in {path}")


if __name__ == "__main__":
    main()
