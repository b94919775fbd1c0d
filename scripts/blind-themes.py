#!/usr/bin/env python3
"""The built-in synthesis judged as a researcher reads it (issue 60, docs/synthesis.md,
"Read blind").

  make-set: each fixture's themes from the synthesis tests' dump (SYNTHESIS_DUMP):
            per question, each theme's label, count and shown quotes, with ids only
            (nothing says which build wrote them), and the participants' profile.
  score:    a reader's ratings (one JSON line per theme: id, rating 1-5, label_ok,
            quotes_saying, background) per fixture: the share kept (4 or 5), the
            share rated 2 or less, labels acceptable alone, shown quotes that say
            their theme's idea, themes of participant background.

  scripts/blind-themes.py make-set DUMP_DIR OUT_DIR
  scripts/blind-themes.py score SET_DIR RATINGS_DIR
  scripts/blind-themes.py rubric

The reader gets only set-<group>.md and the rubric (written into the set's head).
"""
import json
import sys
from pathlib import Path

GROUPS = {"creatives": "anthropic-interviewer-creatives.json", "scientists": "anthropic-interviewer-scientists.json"}

RUBRIC = """You are a senior qualitative researcher reading a draft synthesis of research
interviews (professionals asked how they use AI in their work) before it goes into a
report to stakeholders. Each research question lists its themes: a label, how many
interviews hold it, and the quotes shown for it. Rate every theme:
  5: keep as is
  4: keep, reword the label
  3: a real idea, but the label is wrong or the quotes are mixed
  2: mostly mixed quotes
  1: not a theme
For each theme also say:
  label_ok: would you accept the label as written, read alone (a complete phrase that
            names the shared idea, not a fragment, not one participant's particulars)?
  quotes_saying: how many of its shown quotes, each read on its own, say the theme's idea
  background: is the theme about who the participants are (role, field, employer,
              project, background) rather than what they think or do with AI?
Then read the participants' profile, if there is one, and say whether its roles are
right (profile_ok) and anything wrong in it.
Answer with one JSON line per theme:
  {"id": "T7", "rating": N, "label_ok": true, "quotes_saying": K, "background": false, "note": "..."}
and one last line: {"id": "profile", "profile_ok": true, "note": "..."}"""


def make_set(dump_dir, out_dir):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for group, fixture in GROUPS.items():
        dump = json.loads((Path(dump_dir) / fixture).read_text())
        lines = [f"# Draft synthesis ({group})", "", RUBRIC, ""]
        shown = {}
        n = 0
        for q, question in enumerate(dump["questions"] if isinstance(dump, dict) else dump, 1):
            lines += [f"## Question {q}: {question['question']}", f"({question['answered']} interviews answered it)", ""]
            for theme in question["themes"]:
                n += 1
                tid = f"T{n}"
                shown[tid] = len(theme["quotes"])
                share = theme["interviews"] / max(question["answered"], 1)
                lines.append(f"### {tid}: \u201c{theme['label']}\u201d, {theme['interviews']} interviews ({share:.0%})")
                lines += [f"- \u201c{quote}\u201d" for quote in theme["quotes"]]
                lines.append("")
        profile = dump.get("profile") if isinstance(dump, dict) else None
        if profile:
            lines += ["## The participants' profile", f"({profile['described']} of {profile['interviews']} interviews say who they are)", ""]
            for role in profile["roles"] + ([dict(profile["work"], role="their work, in their words")] if "work" in profile else []):
                lines.append(f"### \u201c{role['role']}\u201d, {role['interviews']} interviews")
                lines += [f"- \u201c{quote}\u201d" for quote in role["quotes"]]
                lines.append("")
        (out / f"set-{group}.md").write_text("\n".join(lines))
        (out / f"shown-{group}.json").write_text(json.dumps(shown))
        print(f"{group}: {n} themes", file=sys.stderr)


def score(set_dir, ratings_dir):
    for group in GROUPS:
        shown = json.loads((Path(set_dir) / f"shown-{group}.json").read_text())
        path = Path(ratings_dir) / f"ratings-{group}.jsonl"
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip().startswith("{")]
        themes = [r for r in rows if r.get("id") in shown]
        profile = [r for r in rows if r.get("id") == "profile"]
        n = len(themes)
        kept = sum(r["rating"] >= 4 for r in themes) / n
        low = sum(r["rating"] <= 2 for r in themes) / n
        labels = sum(bool(r.get("label_ok")) for r in themes) / n
        saying = sum(min(int(r.get("quotes_saying", 0)), shown[r["id"]]) for r in themes) / max(sum(shown[r["id"]] for r in themes), 1)
        background = sum(bool(r.get("background")) for r in themes)
        mean = sum(r["rating"] for r in themes) / n
        print(f"{group}: {n} themes, mean {mean:.2f}, kept {kept:.0%}, 2 or less {low:.0%}, labels ok {labels:.0%}, "
              f"quotes saying {saying:.2f}, background {background}, profile ok {[p.get('profile_ok') for p in profile]}")


def main():
    match sys.argv[1:]:
        case ["make-set", dump_dir, out_dir]:
            make_set(dump_dir, out_dir)
        case ["score", set_dir, ratings_dir]:
            score(set_dir, ratings_dir)
        case ["rubric"]:
            print(RUBRIC)
        case _:
            sys.exit(__doc__)


if __name__ == "__main__":
    main()
