"""Judges the built-in synthesis of the real fixtures with a full sentence model, as
docs/design-decisions.md ("Sentence vectors") reports it: all-MiniLM-L6-v2 (minilm.py, the
model the service uses; MODEL_DIR target/vectors/model) or the larger all-mpnet-base-v2
(mpnet.py; MODEL_DIR from judge-model.sh), the issue's judge. Its input is what
the unit test `real_interviews_give_themes_that_are_ideas_in_the_participants_words`
writes with SYNTHESIS_DUMP=<folder>: per question, the themes (labels, quotes) and every
sentence with its idea.

Per fixture:
- coherence: how much closer a theme's quotes are to each other than to other themes'
  quotes of the question (mean cosine within less mean cosine across);
- the reference: the same sentences grouped by the full model's own vectors (average
  linkage, cut at 0.45, the ideas of two interviews or more, five quotes each);
- label fit: a label's cosine with the mean of its quotes;
- alike: the most alike two labels of one question.

Usage: judge.py MODEL_DIR DUMP_DIR   (e.g. judge.py $(scripts/vectors/judge-model.sh) /tmp/dump)"""
import glob, json, os, sys
import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage
import models

REFERENCE_CUT = 0.45


def coherence(themes):
    within, across = [], []
    for a, quotes_a in enumerate(themes):
        for b, quotes_b in enumerate(themes):
            for i, x in enumerate(quotes_a):
                for j, y in enumerate(quotes_b):
                    if a == b and i < j:
                        within.append(x @ y)
                    elif a < b:
                        across.append(x @ y)
    return (np.mean(within) - np.mean(across)) if within and across else float("nan")


def reference_themes(vectors, interviews):
    """The full model's own grouping of the sentences: each theme's five quotes' vectors."""
    if len(vectors) < 2:
        return []
    labels = fcluster(linkage(vectors, method="average", metric="cosine"), t=1 - REFERENCE_CUT, criterion="distance")
    groups = {}
    for i, label in enumerate(labels):
        groups.setdefault(label, []).append(i)
    themes = []
    for group in groups.values():
        if len({interviews[i] for i in group}) < 2:
            continue
        centre = vectors[group].mean(0)
        seen, quotes = set(), []
        for i in sorted(group, key=lambda i: -(vectors[i] @ centre)):
            if interviews[i] not in seen and len(quotes) < 5:
                seen.add(interviews[i])
                quotes.append(vectors[i])
        themes.append((len(seen), quotes))
    themes.sort(key=lambda t: -t[0])
    return [quotes for _, quotes in themes[:12]]


def main():
    model = models.load(sys.argv[1])
    print("| fixture | themes | coherence | reference | share of reference | label fit (median) | most alike labels |")
    print("|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob(f"{sys.argv[2]}/*.json")):
        dump = json.load(open(path))
        # The dump is the questions, or (since the participants' profile) an object holding them.
        questions = dump["questions"] if isinstance(dump, dict) else dump
        coherences, references, fits, alike, count = [], [], [], [], 0
        for question in questions:
            texts = [s["text"] for s in question["sentences"]]
            interviews = [s["interview"] for s in question["sentences"]]
            vectors = model.encode(texts) if texts else np.zeros((0, 1))
            by_text = dict(zip(texts, vectors))
            themes = question["themes"]
            count += len(themes)
            quotes = [[by_text.get(q) if q in by_text else model.encode([q])[0] for q in t["quotes"]] for t in themes]
            coherences.append(coherence(quotes))
            references.append(coherence(reference_themes(vectors, interviews)))
            if themes:
                labels = model.encode([t["label"] for t in themes])
                for label, theme_quotes in zip(labels, quotes):
                    centre = np.mean(theme_quotes, axis=0)
                    fits.append(float(label @ centre / np.linalg.norm(centre)))
                if len(labels) > 1:
                    similarity = labels @ labels.T
                    np.fill_diagonal(similarity, -1)
                    alike.append(float(similarity.max()))
        c, r = np.nanmean(coherences), np.nanmean(references)
        print(f"| {os.path.basename(path)} | {count} | {c:.3f} | {r:.3f} | {c / r:.2f} | {np.median(fits):.2f} | {max(alike, default=0):.2f} |")


if __name__ == "__main__":
    main()
