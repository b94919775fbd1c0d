"""Writes components/sentence-model/tests/minilm-reference.json: the vectors of
all-MiniLM-L6-v2 for a few varied sentences, from the numpy reference
(minilm.py), each sentence encoded alone. The Rust encoder's test holds its
own vectors to these, and the meanings in context of a few phrases of them (the
mean of the model's token states within each phrase's bytes, `encode_spans`).

    target/vectors/venv/bin/python scripts/vectors/reference.py target/models/all-minilm-l6-v2 OUT.json
(the venv and the model: scripts/vectors/derive.sh, scripts/setup-model.sh)"""
import json, sys
from minilm import MiniLM

LONG = ("When I order a book online I compare the price of the book itself, the price of shipping, "
        "the time it takes to arrive, whether I can return it without paying again, and whether the "
        "shop asks me to make yet another account with yet another password that I will forget. ") * 6

SENTENCES = [
    # The model card's example (0.6660, 0.1046, 0.1411) and sentence-transformers' README's.
    "The weather is lovely today.",
    "It's so sunny outside!",
    "He drove to the stadium.",
    "This is an example sentence",
    "Each sentence is converted",
    # Negation and polarity.
    "I don't have any concerns about AI in my field.",
    "I have a lot of concerns about AI in my field.",
    "Not sitting in traffic every morning is the biggest win.",
    # Paraphrases sharing no content word.
    "Expensive shipping for a single paperback makes me close the tab.",
    "Delivery fees that cost more than the book are why I give up.",
    # Punctuation, numbers, casing, a URL-like token, emoji.
    "WAIT... $4.99 for delivery?!? (on a $3 item) -- no thanks :( https://shop.example/cart#step-3",
    "I get back almost two hours a day 😀 that I used to lose on the train.",
    # Accents and other languages and scripts.
    "Le café était très bon, mais la livraison a coûté une fortune.",
    "Die Lieferung war teuer, aber das Buch kam pünktlich an.",
    "Me encanta trabajar desde casa porque no pierdo tiempo en el tráfico.",
    "Работа из дома экономит мне два часа в день.",
    "在家工作让我每天节省两个小时。",
    "送料が高すぎて、買うのをやめました。",
    # Nothing to say, and more than the model reads (truncated at 256 tokens).
    "",
    "Thanks!",
    LONG,
]

# Phrases whose meanings in context the reference holds: (sentence, phrases of it).
SPANS = [
    (5, ["don't have any concerns", "AI in my field"]),
    (8, ["Expensive shipping", "single paperback", "close the tab"]),
    (11, ["two hours a day", "😀", "lose on the train"]),
    (12, ["la livraison a coûté une fortune"]),
]

def main(model_dir, out):
    m = MiniLM(model_dir)
    rows = []
    for text in SENTENCES:
        ids = m.tok.encode(text).ids
        vector = m.encode_ids([ids])[0]
        rows.append({"text": text, "tokens": len(ids), "vector": [float(f"{x:.9g}") for x in vector]})
    assert any(row["tokens"] == 256 for row in rows), "the long sentence must reach the truncation"
    spans = []
    for index, phrases in SPANS:
        text = SENTENCES[index]
        ranges = []
        for phrase in phrases:
            start = len(text[:text.index(phrase)].encode())
            ranges.append((start, start + len(phrase.encode())))
        for (start, end), vector in zip(ranges, m.encode_spans(text, ranges)):
            spans.append({"sentence": index, "start": start, "end": end,
                          "vector": None if vector is None else [float(f"{x:.9g}") for x in vector]})
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"model": "all-MiniLM-L6-v2", "reference": "scripts/vectors/minilm.py, each sentence alone",
                   "sentences": rows, "spans": spans}, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")

if __name__ == "__main__":
    main(*sys.argv[1:])
