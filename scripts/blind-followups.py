#!/usr/bin/env python3
"""The interviewer judged as a person reads it (issue 58, docs/design-decisions.md,
"The interviewer, read blind").

  make-set: the built-in interviewer's follow-ups on the fixtures' real answers
            (from the replay's dump, REPLAY_DUMP), shuffled with the follow-ups the
            fixtures' own interviewer asked after its participants' answers; each
            item is an id, the answer and the follow-up, nothing that says who wrote
            it. The key (id -> writer) is written to a file of its own, for after.
  make-pairs: one change read on its own: every English transcript answer whose
            follow-up differs between two builds' dumps, once with each build's,
            shuffled into one set (set-pairs.md) for one reader; the key says
            which build wrote which ("before", "after").
  score:    a reader's ratings (one JSON line per item: id, rating 1-5, flags)
            with the key applied: per fixture and writer, the mean, the share
            rated 4 or 5, the share rated 2 or less, and the commonest flags.

  scripts/blind-followups.py make-set DUMP OUT_DIR [--per-writer N]
  scripts/blind-followups.py make-pairs BEFORE_DUMP AFTER_DUMP OUT_DIR
  scripts/blind-followups.py score KEY RATINGS...

The reader gets only set-<fixture>.md and RUBRIC (printed by `rubric`).
"""
import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "tests/fixtures/real-answers"
GROUPS = {"creatives": "anthropic-interviewer-creatives.json", "scientists": "anthropic-interviewer-scientists.json"}
SEED = 58

RUBRIC = """You are an experienced qualitative research interviewer reviewing follow-up questions.
Each item shows a participant's answer in a research interview about AI in their work,
then the interviewer's next message (a follow-up). Rate each follow-up 1 to 5:
  5: what a skilled interviewer would ask here
  4: good, minor wording issue
  3: acceptable but flat, generic or slightly off
  2: awkward or ill-fitting
  1: would confuse or annoy the participant
Flag any that apply: awkward_quote (quotes the participant's words cut oddly or wrongly),
misfit (the question does not fit what was said), generic (could follow any answer),
several_questions (asks more than one thing), leading.
Answer with one JSON line per item: {"id": "...", "rating": N, "flags": [...]}"""


def own_followups(fixture):
    """(interview, answer, the study's next message) for every answer its interviewer followed."""
    data = json.loads((FIXTURES / fixture).read_text())
    for interview in data["interviews"]:
        turns = interview["turns"]
        # The first reply answers the greeting; the replay starts after it, as here.
        for before, after in zip(turns[1:], turns[2:]):
            yield interview["id"], before["participant"], after["interviewer"]


def make_set(dump, out_dir, per_writer):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    rows = [json.loads(line) for line in Path(dump).read_text().splitlines()]
    key = {}
    for group, fixture in GROUPS.items():
        rng = random.Random(f"{SEED}-{group}")
        builtin = [(r["interview"], r["answer"], r["reply"]) for r in rows if r["file"] == fixture and r["probe"]]
        own = list(own_followups(fixture))
        items = [("built-in", item) for item in rng.sample(builtin, min(per_writer, len(builtin)))]
        items += [("study", item) for item in rng.sample(own, min(per_writer, len(own)))]
        rng.shuffle(items)
        write_set(out, group, group, [({"group": group, "writer": writer}, answer, followup) for writer, (_, answer, followup) in items], key)
    (out / "key.json").write_text(json.dumps(key, indent=1))


def write_set(out, name, title, items, key):
    """Writes the reading set `items` ((key entry, answer, follow-up), in order) as set-<name>.md."""
    lines = [f"# Reading set: {title}\n", RUBRIC, ""]
    for n, (who, answer, followup) in enumerate(items, 1):
        item_id = f"{name[0]}{n:03d}"
        key[item_id] = who
        lines += [f"## {item_id}", f"Participant: {answer.strip()}", f"Interviewer: {followup.strip()}", ""]
    (out / f"set-{name}.md").write_text("\n".join(lines))


def make_pairs(before_dump, after_dump, out_dir):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    read = lambda dump: [json.loads(line) for line in Path(dump).read_text().splitlines()]
    items = []
    for before, after in zip(read(before_dump), read(after_dump)):
        changed = before["reply"] != after["reply"] and (before["probe"] or after["probe"])
        if changed and before["file"] in GROUPS.values():
            items.append(({"group": "pairs", "writer": "before"}, before["answer"], before["reply"]))
            items.append(({"group": "pairs", "writer": "after"}, after["answer"], after["reply"]))
    random.Random(f"{SEED}-pairs").shuffle(items)
    key = {}
    write_set(out, "pairs", "pairs", items, key)
    (out / "key.json").write_text(json.dumps(key, indent=1))
    print(f"{len(items) // 2} changed follow-ups, {len(items)} items")


def score(key_file, rating_files):
    key = json.loads(Path(key_file).read_text())
    tally = defaultdict(list)
    for file in rating_files:
        for line in Path(file).read_text().splitlines():
            line = line.strip()
            if not line.startswith("{"):
                continue
            rating = json.loads(line)
            who = key[rating["id"]]
            tally[(who["group"], who["writer"])].append(rating)
    print("| | rated | mean | rated 4 or 5 | rated 2 or less | most common flags |")
    print("|---|---|---|---|---|---|")
    for (group, writer), ratings in sorted(tally.items()):
        values = [r["rating"] for r in ratings]
        flags = Counter(flag for r in ratings for flag in r.get("flags", []))
        common = ", ".join(f"{flag} {count}" for flag, count in flags.most_common(3))
        print(
            f"| {writer}, {group} | {len(values)} | {sum(values) / len(values):.2f} | "
            f"{sum(v >= 4 for v in values) / len(values):.0%} | {sum(v <= 2 for v in values) / len(values):.0%} | {common} |"
        )


if __name__ == "__main__":
    verb, *args = sys.argv[1:] or ["help"]
    if verb == "make-set" and len(args) >= 2:
        per = int(args[args.index("--per-writer") + 1]) if "--per-writer" in args else 30
        make_set(args[0], args[1], per)
    elif verb == "make-pairs" and len(args) == 3:
        make_pairs(*args)
    elif verb == "score" and len(args) >= 2:
        score(args[0], args[1:])
    elif verb == "rubric":
        print(RUBRIC)
    else:
        sys.exit(__doc__)
