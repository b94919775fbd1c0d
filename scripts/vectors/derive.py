"""Derives the static sentence-vector table (components/text/data/sentence-vectors.bin)
from all-MiniLM-L6-v2, as docs/design-decisions.md ("Sentence vectors") describes:

1. the naive rows: each WordPiece token of the vocabulary through the model alone
   ([CLS] token [SEP]), its own output vector, the mean of all rows taken out;
2. a fitting corpus of general English (WordNet 3.0's glosses and example sentences,
   Debian's fortune cookies: nothing of any study), each text through the model;
3. the fit: rows such that the mean of a text's rows reproduces the model's vector of
   it (least squares, held to the naive rows where a token is rare or absent);
4. the table: reduced to its principal directions, one byte a dimension per row and a
   scale, the vocabulary sorted (the layout text/vectors.rs reads).

Usage: derive.py MODEL_DIR CORPUS_ROOT WORK_DIR OUT [--texts N] [--dims D]
Each step's result is kept in WORK_DIR, so a run that stopped goes on where it was."""
import argparse, glob, json, os, random, re, struct, sys, time
import numpy as np
import scipy.sparse as sp
from tokenizers import Tokenizer
from minilm import MiniLM

SPECIAL = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
PRIOR_SCALE = 0.1     # the naive rows, scaled to the fitted rows' size, as the prior
RIDGE = 1e-4          # how strongly a row is held to its prior
FIT_ITERATIONS = 150  # conjugate-gradient steps


def log(*args):
    print(time.strftime("%H:%M:%S"), *args, file=sys.stderr, flush=True)


def corpus(root):
    """General English texts: WordNet's glosses and examples, fortune cookies; shuffled (seed 7)."""
    texts = []
    for pos in ["noun", "verb", "adj", "adv"]:
        for line in open(f"{root}/usr/share/wordnet/data.{pos}", encoding="latin-1"):
            if line.startswith("  ") or "|" not in line:
                continue
            for part in (p.strip() for p in line.split("|", 1)[1].strip().split(";")):
                if part.startswith('"'):
                    part = part.strip('"').strip()
                    if len(part.split()) >= 3:
                        texts.append(part)
                elif len(part.split()) >= 4:
                    texts.append(part)
    for path in sorted(glob.glob(f"{root}/usr/share/games/fortunes/*")):
        if "." in os.path.basename(path) or os.path.isdir(path):
            continue
        try:
            raw = open(path, encoding="utf-8").read()
        except UnicodeDecodeError:
            continue
        for item in raw.split("\n%\n"):
            item = " ".join(item.split())
            for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z\"'])", item):
                if 4 <= len(sentence.split()) <= 40 and not re.search(r"[|_=<>{}\\]{2,}", sentence):
                    texts.append(sentence)
    seen, unique = set(), []
    for text in texts:
        if text not in seen:
            seen.add(text)
            unique.append(text)
    random.Random(7).shuffle(unique)
    return unique


def naive_rows(model, work):
    path = f"{work}/naive.npy"
    if os.path.exists(path):
        return np.load(path)
    size = model.w[model.prefix + "embeddings.word_embeddings.weight"].shape[0]
    rows = np.zeros((size, 384), np.float32)
    for start in range(0, size, 512):
        ids = np.array([[101, i, 102] for i in range(start, min(size, start + 512))])
        rows[start:start + len(ids)] = model.hidden(ids, np.ones_like(ids))[:, 1]
        log("naive rows", start + len(ids), "of", size)
    np.save(path, rows)
    return rows


def reference_vectors(model, texts, work, chunk=5000):
    parts = []
    for start in range(0, len(texts), chunk):
        path = f"{work}/reference-{start}-{start + chunk}.npy"
        if not os.path.exists(path):
            np.save(path, model.encode(texts[start:start + chunk], batch=128).astype(np.float16))
            log("reference vectors", min(len(texts), start + chunk), "of", len(texts))
        parts.append(np.load(path).astype(np.float32))
    return np.concatenate(parts)


def token_ids(tokenizer, texts, special_ids):
    return [[i for i in tokenizer.encode(t).ids if i not in special_ids] for t in texts]


def fit(ids, targets, prior, size):
    """Rows E minimising |A E - Y|^2 + RIDGE |E - prior|^2, A a text's mean over its tokens."""
    rows, cols, vals = [], [], []
    for r, text_ids in enumerate(ids):
        for t in text_ids:
            rows.append(r); cols.append(t); vals.append(1.0 / len(text_ids))
    a = sp.csr_matrix((vals, (rows, cols)), shape=(len(ids), size), dtype=np.float32)
    at = a.T.tocsr()
    op = lambda e: at @ (a @ e) + RIDGE * e
    b = at @ targets + RIDGE * prior
    e = prior.copy(); r = b - op(e); p = r.copy(); rs = (r * r).sum(0)
    for step in range(FIT_ITERATIONS):
        ap = op(p); alpha = rs / np.maximum((p * ap).sum(0), 1e-30)
        e += p * alpha; r -= ap * alpha
        rs_new = (r * r).sum(0)
        p = r + p * (rs_new / np.maximum(rs, 1e-30)); rs = rs_new
    return e


def write_table(rows, vocabulary, out, dims):
    keep = [i for i, t in enumerate(vocabulary) if t not in SPECIAL and not (t.startswith("[unused") and t.endswith("]"))]
    rows, tokens = rows[keep], [vocabulary[i] for i in keep]
    _, _, directions = np.linalg.svd(rows - rows.mean(0), full_matrices=False)
    rows = rows @ directions[:dims].T
    order = sorted(range(len(tokens)), key=lambda i: tokens[i].encode("utf-8"))
    vocabulary_bytes = "".join(tokens[i] + "\n" for i in order).encode("utf-8")
    body = bytearray()
    for i in order:
        largest = float(np.abs(rows[i]).max())
        scale = largest / 127.0 if largest > 0 else 0.0
        values = np.clip(np.round(rows[i] / scale), -127, 127).astype(np.int8) if largest > 0 else np.zeros(dims, np.int8)
        body += struct.pack("<f", scale) + values.tobytes()
    header = b"IRSV" + struct.pack("<HHII", 1, dims, len(tokens), len(vocabulary_bytes))
    with open(out, "wb") as f:
        f.write(header + vocabulary_bytes + bytes(body))


def main():
    parser = argparse.ArgumentParser()
    for name in ["model", "corpus_root", "work", "out"]:
        parser.add_argument(name)
    parser.add_argument("--texts", type=int, default=100_000)
    parser.add_argument("--dims", type=int, default=128)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    model = MiniLM(args.model)
    tokenizer = Tokenizer.from_file(f"{args.model}/tokenizer.json")
    tokenizer.no_padding(); tokenizer.no_truncation()
    vocabulary = [t for t, _ in sorted(json.load(open(f"{args.model}/tokenizer.json"))["model"]["vocab"].items(), key=lambda kv: kv[1])]
    special_ids = {i for i, t in enumerate(vocabulary) if t in SPECIAL}
    naive = naive_rows(model, args.work)
    texts = corpus(args.corpus_root)[: args.texts]
    log(len(texts), "texts in the fitting corpus")
    targets = reference_vectors(model, texts, args.work)
    rows = fit(token_ids(tokenizer, texts, special_ids), targets, (naive - naive.mean(0)) * PRIOR_SCALE, len(vocabulary))
    write_table(rows, vocabulary, args.out, args.dims)
    log("wrote", args.out, os.path.getsize(args.out), "bytes")


if __name__ == "__main__":
    main()
