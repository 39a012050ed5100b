#!/usr/bin/env python3
"""Draw the reproducible 10% review sample of "Players ask" (corpus/asks/<lang>/*.toml).

Each language is sampled separately: the questions of a language are listed in file order
(files sorted by name, asks in order within a file), then random.Random(SEED).sample picks
ceil(10%) of their positions.  Usage: sample.py [ASKS_DIR] [--rules CR.txt]  (prints JSON lines)

Second sample (review-2026-12-08): only the questions added since commit 28a0857 (a question is new
when its (lang, q) pair is absent from every file at that commit), seed 2027, round(10%) of each
language.  Usage: sample.py --new-since 28a0857 --seed 2027 [ASKS_DIR]

Third sample (review-2026-12-08b): the same new questions still present, minus those an earlier
review already judged (--exclude REVIEW.toml, repeatable), seed 2028, round(10%) of each language.
Usage: sample.py --new-since 28a0857 --seed 2028 --exclude tests/asks_review/review-2026-12-08.toml

Fourth sample (review-2026-12-08c), after the dedupe: seed 2029, excluding both earlier samples.
Usage: sample.py --new-since 28a0857 --seed 2029 --exclude tests/asks_review/review-2026-12-08.toml
       --exclude tests/asks_review/review-2026-12-08b.toml
"""

import json
import math
import pathlib
import random
import re
import subprocess
import sys
import tomllib

SEED = 2026
LANGS = ("en", "fr", "ja")


def load(asks_dir):
    out = {lang: [] for lang in LANGS}
    for lang in LANGS:
        for p in sorted((pathlib.Path(asks_dir) / lang).glob("*.toml")):
            data = tomllib.loads(p.read_text(encoding="utf-8"))
            for i, ask in enumerate(data.get("ask", [])):
                out[lang].append({"file": str(p), "index": i, **ask})
    return out


def draw(asks_dir, seed=SEED):
    asks = load(asks_dir)
    sample = []
    for lang in LANGS:
        items = asks[lang]
        k = math.ceil(len(items) / 10)
        picks = sorted(random.Random(seed).sample(range(len(items)), k))
        sample += [items[j] for j in picks]
    return sample


def old_questions(commit, asks_dir="corpus/asks"):
    """Return the (lang, q) pairs of every ask in ASKS_DIR as it stood at git COMMIT."""
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", commit, asks_dir],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    seen = set()
    for name in names:
        if name.endswith(".toml"):
            text = subprocess.run(
                ["git", "show", f"{commit}:{name}"], capture_output=True, text=True, check=True
            ).stdout
            seen.update((a["lang"], a["q"]) for a in tomllib.loads(text).get("ask", []))
    return seen


def reviewed(paths):
    """Return the (lang, q) pairs already judged in the review files PATHS."""
    seen = set()
    for path in paths:
        data = tomllib.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        seen.update((e["lang"], e["q"]) for e in data.get("review", []))
    return seen


def draw_new(asks_dir, since, seed, exclude=()):
    """Draw round(10%) of each language among the asks whose question is new since SINCE,
    leaving out the questions already judged in the review files EXCLUDE."""
    asks = load(asks_dir)
    old = old_questions(since, asks_dir) | reviewed(exclude)
    sample = []
    for lang in LANGS:
        items = [a for a in asks[lang] if (a["lang"], a["q"]) not in old]
        k = round(len(items) / 10)
        picks = sorted(random.Random(seed).sample(range(len(items)), k))
        sample += [items[j] for j in picks]
    return sample


def rules_text(path):
    rules = {}
    for line in pathlib.Path(path).read_text(encoding="utf-8-sig").splitlines():
        m = re.match(r"^(\d{3}\.\d+[a-z]?|\d{3})\.?\s+(.*)", line)
        if m and m.group(1) not in rules:
            rules[m.group(1)] = m.group(2)
    return rules


if __name__ == "__main__":
    argv = sys.argv[1:]
    opts = {}
    exclude = []
    while "--exclude" in argv:
        i = argv.index("--exclude")
        exclude.append(argv[i + 1])
        del argv[i : i + 2]
    for name in ("--new-since", "--seed", "--rules"):
        if name in argv:
            i = argv.index(name)
            opts[name] = argv[i + 1]
            del argv[i : i + 2]
    asks_dir = argv[0] if argv else "corpus/asks"
    if "--new-since" in opts:
        drawn = draw_new(asks_dir, opts["--new-since"], int(opts.get("--seed", 2027)), exclude)
    else:
        drawn = draw(asks_dir, int(opts.get("--seed", SEED)))
    for a in drawn:
        print(json.dumps(a, ensure_ascii=False))
