"""Where search quality is lost on players' questions: finding the answer, or ordering it.

For each half of the evaluation (``bench_search_eval.py``'s sets, index and scoring), two
aggregate tables, no per-query line (the test half is never shown query by query):

- **candidate recall**: the share of questions with a relevant rule among the first N rule hits
  (N = 1 ... 100). At N = 1 it is the share answered first; at N it is also the MRR a perfect
  re-ranker of our first N hits would reach (it would put that rule first).
- **where the first hit goes wrong**, for the questions whose first rule hit is not relevant: the
  first hit is a sibling or parent of an expected rule (same rule, such as 702.15b for 702.15f), in
  the same section (702.2 for 702.15f), in the same chapter, or elsewhere.

It answers the question a ranking change must be aimed by: if the answer is nearly always among
the candidates and the first hit is usually its sibling, the loss is in ordering texts that share
the question's words, which reading the texts (a model) decides, not finding them (vocabulary).

Run: ``python tests/bench/bench_rerank_ceiling.py [--half tune|test|both]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import bench_search_eval as ev

from kb.search import Searcher, build_index

DEPTHS = (1, 3, 5, 10, 20, 40, 100)


def rule_hits(hits: list[Any]) -> list[Any]:
    """The rule hits of a result in order (glossary hits take no rank, as in the evaluation)."""
    return [h for h in hits if h.kind != "glossary"]


def _rule(number: str) -> str:
    """The rule a number belongs to: 702.15f -> 702.15 (a section or rule is itself)."""
    return number.rstrip("abcdefghijklmnopqrstuvwxyz")


def place(expect: list[str], number: str) -> str:
    """How near rule ``number`` is to the nearest expected rule: the same rule (a sibling or
    the parent), the same section, the same chapter, or elsewhere."""
    order = ("same rule", "same section", "same chapter", "elsewhere")
    best = 3
    for want in expect:
        if ":" in want or not number or ":" in number:
            continue
        if _rule(number) == _rule(want):
            best = min(best, 0)
        elif number.split(".")[0] == want.split(".")[0]:
            best = min(best, 1)
        elif number[0] == want[0]:
            best = min(best, 2)
    return order[best]


def measure(searcher: Searcher, half: str) -> None:
    """Print the two tables for ``half``."""
    items = ev.load(half)
    ranks: list[int] = []
    wrong: Counter[str] = Counter()
    for item in items:
        hits = rule_hits(searcher.search(item["query"], limit=max(DEPTHS)).hits)
        rank = 0
        for i, hit in enumerate(hits[: max(DEPTHS)], 1):
            if ev.relevant(item["expect"], hit):
                rank = i
                break
        ranks.append(rank)
        if rank != 1 and hits:
            first = hits[0]
            wrong[place(item["expect"], first.canonical or first.number or "")] += 1
    n = len(items)
    cells = "  ".join(f"@{d}: {sum(1 for r in ranks if r and r <= d) / n:.2f}" for d in DEPTHS)
    print(f"{half:5} candidate recall ({n} questions)  {cells}")
    missed = sum(wrong.values())
    parts = ", ".join(
        f"{k} {wrong[k]} ({wrong[k] / missed:.0%})"
        for k in ("same rule", "same section", "same chapter", "elsewhere")
    )
    print(f"{half:5} first hit not relevant in {missed}: {parts}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--half", choices=("tune", "test", "both"), default="both")
    args = parser.parse_args(argv)
    kb = ev.load_kb()
    with tempfile.TemporaryDirectory() as tmp:
        build_index(kb, Path(tmp))
        with Searcher(Path(tmp), kb) as searcher:
            for half in ("tune", "test") if args.half == "both" else (args.half,):
                measure(searcher, half)
    return 0


if __name__ == "__main__":
    sys.exit(main())
