#!/usr/bin/env python3
"""Held-out real interviews for a blind reading (docs/synthesis.md, "Read blind"):
the Anthropic Interviewer transcripts that tests/fixtures/real-answers does not
hold, written in that folder's shape, so that the replay and the synthesis tests
read them in place of the fixtures (REAL_ANSWERS_DIR=<out>). What is tuned on the
fixtures is judged on these; they are never committed.

  scripts/heldout-transcripts.py CREATIVES_CSV SCIENTISTS_CSV OUT_DIR [--count N]

The CSVs are the dataset's own (transcript_id,text; lines start with
'Assistant:', 'AI:' or 'User:'). The fixtures' privacy filter applies: an
interview whose participant writes an email, a long number, a name
introduction, an @handle or a URL is skipped."""
import csv
import json
import re
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "tests/fixtures/real-answers"
PRIVATE = re.compile(r"[\w.+-]+@[\w-]+\.\w|\d{8,}|my name is|(^|\s)@\w|https?://|www\.", re.I)
SPEAKER = re.compile(r"^(Assistant|AI|User):\s?", re.M)


def turns_of(text):
    """(interviewer, participant) pairs, the interviewer's messages since the last reply joined."""
    parts = SPEAKER.split(text)
    messages = [(parts[i], parts[i + 1].strip()) for i in range(1, len(parts) - 1, 2)]
    turns, said = [], []
    for speaker, message in messages:
        if speaker == "User":
            turns.append({"interviewer": "\n\n".join(said), "participant": message})
            said = []
        else:
            said.append(message)
    return turns, "\n\n".join(said)


def held_out(csv_path, fixture, count):
    held = {i["id"] for i in json.loads((FIXTURES / fixture).read_text())["interviews"]}
    csv.field_size_limit(1 << 24)
    interviews = []
    for row in csv.DictReader(open(csv_path, newline="")):
        if row["transcript_id"] in held:
            continue
        turns, closing = turns_of(row["text"])
        if len(turns) < 4 or any(PRIVATE.search(t["participant"]) for t in turns):
            continue
        interviews.append({"id": row["transcript_id"], "turns": turns, "interviewer_closing": closing})
        if len(interviews) == count:
            break
    source = json.loads((FIXTURES / fixture).read_text())["source"]
    return {"source": source, "language": "en", "questions": [], "interviews": interviews}


def main():
    args = sys.argv[1:]
    count = 60
    if "--count" in args:
        at = args.index("--count")
        count = int(args[at + 1])
        del args[at:at + 2]
    creatives, scientists, out = args
    Path(out).mkdir(parents=True, exist_ok=True)
    for csv_path, fixture in [(creatives, "anthropic-interviewer-creatives.json"), (scientists, "anthropic-interviewer-scientists.json")]:
        data = held_out(csv_path, fixture, count)
        (Path(out) / fixture).write_text(json.dumps(data, ensure_ascii=False, indent=1))
        print(f"{fixture}: {len(data['interviews'])} held-out interviews", file=sys.stderr)


if __name__ == "__main__":
    main()
