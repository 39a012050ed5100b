"""Tuning the questions players ask in search: MRR of the TUNING half (never the test half) and
of the questions themselves as queries, held out by rule, for a grid of the votes' weights.

Held out by rule: a question searched as a query hides every question citing any rule it
cites (:attr:`kb.search.ranking.Ranker.hidden_asks`), so that no rule is scored by its own
questions. ``python tests/bench/tune_asks.py [--asks N]`` (N questions sampled, default 600).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_search_eval as bench

from kb.search import Searcher, build_index, ranking, votes


def tune_half(searcher: Searcher) -> dict[str, float]:
    """MRR per kind and overall of the tuning half."""
    rows: dict[str, list[float]] = defaultdict(list)
    for item in bench.load("tune"):
        rr = bench.evaluate(searcher, item)["rr"]
        rows[item["kind"]].append(rr)
        rows["all"].append(rr)
    return {k: sum(v) / len(v) for k, v in rows.items()}


def ask_queries(searcher: Searcher, sample: list[Any]) -> float:
    """MRR of questions searched as queries, each with the questions of its rules hidden."""
    docs_of: dict[str, set[int]] = defaultdict(set)
    for doc, rules in searcher._ranker._ask_cites.items():
        for rule in rules:
            docs_of[searcher._groups[rule]].add(doc)
    total = 0.0
    for ask in sample:
        hidden: set[int] = set()
        for rule in ask.rules:
            hidden |= docs_of.get(f"r:{rule}", set())
        searcher._ranker.hidden_asks = frozenset(hidden)
        rank, _recall, _top = bench.score_hits(searcher.search(ask.q, limit=20).hits, ask.rules)
        total += 1.0 / rank if rank else 0.0
    searcher._ranker.hidden_asks = frozenset()
    return total / len(sample)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--asks", type=int, default=600)
    args = parser.parse_args()
    kb = bench.load_kb()
    sample = random.Random(26).sample(kb.asks, min(args.asks, len(kb.asks)))
    with tempfile.TemporaryDirectory() as tmp:
        build_index(kb, Path(tmp))
        with Searcher(Path(tmp), kb) as searcher:
            grid = [(0.0, 8, 40)] + [
                (vote, voters, 40) for vote in (0.5, 1.0, 2.0, 4.0) for voters in (8, 20)
            ]
            for vote, voters, depth in grid:
                votes.ASK_VOTE, votes.ASK_VOTERS, ranking.ASK_DEPTH = vote, voters, depth
                t = time.perf_counter()
                tune = tune_half(searcher)
                asked = ask_queries(searcher, sample)
                kinds = " ".join(f"{k}={v:.3f}" for k, v in sorted(tune.items()))
                print(
                    f"vote={vote} voters={voters} depth={depth}: tune {tune['all']:.3f} "
                    f"asks-held-out {asked:.3f} ({time.perf_counter() - t:.0f} s) {kinds}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
