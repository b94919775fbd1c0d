"""Judges the built-in interviewer's probes on the real fixtures with the full model
(all-MiniLM-L6-v2 in numpy), as docs/design-decisions.md ("The interviewer's voice")
reports it. Its input is what the replay test writes with REPLAY_DUMP=<file> (one JSON
line per answer and the interviewer's reply):

  REPLAY_DUMP=/tmp/replay.jsonl cargo test -p api-core --lib -- replay::real_answers
  target/vectors/venv/bin/python scripts/vectors/judge_probes.py target/vectors/model /tmp/replay.jsonl

Per fixture (English ones: the model is English): the median cosine of a probe with its
answer, the same with the quoted words taken out of the probe, and the share of the
probes the most used wording serves (a wording: the probe with its quote replaced by
{phrase})."""
import collections, json, sys
import numpy as np
from minilm import MiniLM

model = MiniLM(sys.argv[1])
rows = [json.loads(line) for line in open(sys.argv[2])]
probes = [r for r in rows if r["probe"]]
by_file = collections.defaultdict(list)
for r in probes:
    by_file[r["file"]].append(r)
wordings_all = collections.Counter()
for file, rs in sorted(by_file.items()):
    wordings = collections.Counter(r["reply"].replace(r["quote"], "{phrase}") if r["quote"] else r["reply"] for r in rs)
    wordings_all.update(wordings)
    top, count = wordings.most_common(1)[0]
    line = f"{file}: {len(rs)} probes; top wording {count / len(rs):.2f} ({top!r})"
    if "-en" in file or "anthropic" in file:
        answers = model.encode([r["answer"] for r in rs])
        asked = model.encode([r["reply"] for r in rs])
        bare = model.encode([r["reply"].replace(r["quote"], "") if r["quote"] else r["reply"] for r in rs])
        close = np.sum(answers * asked, axis=1)
        close_bare = np.sum(answers * bare, axis=1)
        line += f"; probe~answer median {np.median(close):.3f}, without the quote {np.median(close_bare):.3f}"
    print(line)
top, count = wordings_all.most_common(1)[0]
print(f"all: {len(probes)} probes, {len(wordings_all)} wordings; top {count / len(probes):.3f} ({top!r})")
