"""Judges the built-in interviewer's probes on the real fixtures with a full sentence
model (all-MiniLM-L6-v2, or the larger all-mpnet-base-v2 from judge-model.sh: models.py),
as docs/design-decisions.md ("The interviewer") reports it. Its input is what the
replay test writes with REPLAY_DUMP=<file> (one JSON line per answer and the
interviewer's reply, with the phrases the reply quotes):

  REPLAY_DUMP=/tmp/replay.jsonl cargo test -p sessions-core --lib -- replay::real_answers
  target/vectors/venv/bin/python scripts/vectors/judge_probes.py target/vectors/model /tmp/replay.jsonl

Per fixture: the probes, the share that quote two phrases, and the share of the probes
the most used wording serves (a wording: the probe with its quotes replaced by
{phrase} and {other}); for the English ones (the model is English) the median cosine
of a probe with its answer, over every probe and over the probes that quote one
phrase (the issue's answer-relevance figure), and the latter with the quote taken out
of the probe (what the question itself adds)."""
import collections, json, sys
import numpy as np
import models


def wording(row):
    text = row["reply"]
    for name, quote in zip(["{phrase}", "{other}"], row["quotes"]):
        text = text.replace(quote, name, 1)
    return text


def median_cosine(model, answers, replies):
    if not answers:
        return float("nan")
    return float(np.median(np.sum(model.encode(answers) * model.encode(replies), axis=1)))


model = models.load(sys.argv[1])
rows = [json.loads(line) for line in open(sys.argv[2])]
probes = [r for r in rows if r["probe"]]
by_file = collections.defaultdict(list)
for r in probes:
    by_file[r["file"]].append(r)
wordings_all = collections.Counter()
for file, rs in sorted(by_file.items()):
    wordings = collections.Counter(wording(r) for r in rs)
    wordings_all.update(wordings)
    top, count = wordings.most_common(1)[0]
    two = sum(len(r["quotes"]) == 2 for r in rs)
    single = [r for r in rs if len(r["quotes"]) == 1]
    line = f"{file}: {len(rs)} probes, two quotes {two / len(rs):.3f} ({two}), one quote {len(single)}; top wording {count / len(rs):.2f} ({top!r})"
    if "-en" in file or "anthropic" in file:
        every = median_cosine(model, [r["answer"] for r in rs], [r["reply"] for r in rs])
        one = median_cosine(model, [r["answer"] for r in single], [r["reply"] for r in single])
        bare = median_cosine(model, [r["answer"] for r in single], [r["reply"].replace(r["quotes"][0], "") for r in single])
        line += f"; probe~answer median {every:.3f}, one-quote probes {one:.3f} (without the quote {bare:.3f})"
    print(line)
top, count = wordings_all.most_common(1)[0]
two = sum(len(r["quotes"]) == 2 for r in probes)
print(f"all: {len(probes)} probes, two quotes {two / len(probes):.3f}, {len(wordings_all)} wordings; top {count / len(probes):.3f} ({top!r})")
