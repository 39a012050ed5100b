#!/usr/bin/env python3
"""Draw the reproducible 10% review sample of "Players ask" (corpus/asks/<lang>/*.toml).

Each language is sampled separately: the questions of a language are listed in file order
(files sorted by name, asks in order within a file), then random.Random(SEED).sample picks
ceil(10%) of their positions.  Usage: sample.py [ASKS_DIR] [--rules CR.txt]  (prints JSON lines)
"""

import json
import math
import pathlib
import random
import re
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


def rules_text(path):
    rules = {}
    for line in pathlib.Path(path).read_text(encoding="utf-8-sig").splitlines():
        m = re.match(r"^(\d{3}\.\d+[a-z]?|\d{3})\.?\s+(.*)", line)
        if m and m.group(1) not in rules:
            rules[m.group(1)] = m.group(2)
    return rules


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    for a in draw(args[0] if args else "corpus/asks"):
        print(json.dumps(a, ensure_ascii=False))
