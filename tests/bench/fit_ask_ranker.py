"""Train the learned order of the best documents (:mod:`kb.search.learned`) on "Players ask":
each question is a query, the rules it cites are relevant. Cross-validated by rule, then judged
on the TUNING half of the search evaluation (never the test half); writes the model only when
asked (``--write``) and says whether it wins.

Each question is searched with its own document hidden (it may not vote for its own rules;
the others citing the same rules do, as they would for a player's new wording). The folds split
the questions by the rule they cite first (a rule's questions are all in one fold), so a model is
always validated on rules whose questions it never saw. Reported: MRR of the validation
questions in the hand-made order and in the model's (within the first :data:`DEPTH` documents,
a rule's texts in several languages counted once), the feature importances (gain), and the
tuning half's MRR without and with the model trained on every question.

Run: ``python tests/bench/fit_ask_ranker.py [--write]`` (a few minutes).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Any

import lightgbm
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_search_eval as bench

from kb.search import Searcher, build_index
from kb.search.learned import DEPTH, FEATURES, MODEL_FILE

FOLDS = 5
PARAMS: dict[str, Any] = {
    "objective": "lambdarank",
    "metric": "ndcg",
    "ndcg_eval_at": [1, 5],
    "num_leaves": 15,
    "learning_rate": 0.05,
    "min_data_in_leaf": 20,
    "lambdarank_truncation_level": DEPTH,
    "verbosity": -1,
    "seed": 26,
    "deterministic": True,
    "num_threads": 1,
}
ROUNDS = 150


def collect(searcher: Searcher, hide: str) -> list[dict[str, Any]]:
    """Each question searched (its own document hidden, or with ``hide`` "rule" every question
    citing one of its rules): its candidates' features and labels."""
    ranker = searcher._ranker
    learned = ranker.learned
    model, learned.model = learned.model, None
    learned.capture = []
    doc_of = {searcher._groups[d][2:]: d for d in ranker._ask_cites}
    number_of = ranker._concepts.number_of
    groups = searcher._groups
    of_rule: dict[str, set[int]] = defaultdict(set)
    for ask in searcher.kb.asks:
        for rule in ask.rules:
            if ask.id in doc_of:
                of_rule[rule].add(doc_of[ask.id])
    out = []
    for ask in searcher.kb.asks:
        learned.capture.clear()
        own = doc_of.get(ask.id)
        hidden = {own} if own is not None else set()
        if hide == "rule":
            hidden = hidden.union(*(of_rule[r] for r in ask.rules))
        ranker.hidden_asks = frozenset(hidden)
        searcher.clear_caches()
        searcher.search(ask.q, limit=10)
        if not learned.capture:
            continue
        docs, rows = learned.capture[-1]
        labels = [int(any(bench.covers(r, number_of.get(d, "")) for r in ask.rules)) for d in docs]
        out.append(
            {
                "ask": ask,
                "docs": docs,
                "groups": [groups[d] for d in docs],
                "rows": rows,
                "labels": labels,
                "fold": zlib.crc32(ask.rules[0].encode()) % FOLDS,
            }
        )
    ranker.hidden_asks = frozenset()
    learned.capture, learned.model = None, model
    return out


def mrr(items: list[dict[str, Any]], scores: list[np.ndarray] | None) -> float:
    """MRR of the first relevant rule in each item's order (``scores``: the model's, else the
    hand-made order), a group (a rule's texts in several languages) counted once."""
    total = 0.0
    for n, item in enumerate(items):
        order = range(len(item["docs"]))
        if scores is not None:
            order = sorted(order, key=lambda i: -scores[n][i])
        seen: list[str] = []
        for i in order:
            group = item["groups"][i]
            if group in seen:
                continue
            seen.append(group)
            if item["labels"][i]:
                total += 1.0 / len(seen)
                break
    return total / len(items)


def train(items: list[dict[str, Any]], rounds: int = ROUNDS) -> lightgbm.Booster:
    useful = [it for it in items if any(it["labels"])]
    x = np.array([row for it in useful for row in it["rows"]])
    y = np.array([lab for it in useful for lab in it["labels"]])
    data = lightgbm.Dataset(
        x, y, group=[len(it["rows"]) for it in useful], feature_name=list(FEATURES)
    )
    return lightgbm.train(PARAMS, data, num_boost_round=rounds)


def tune_mrr(searcher: Searcher) -> dict[str, float]:
    rows: dict[str, list[float]] = defaultdict(list)
    for item in bench.load("tune"):
        searcher.clear_caches()
        rr = bench.evaluate(searcher, item)["rr"]
        rows[item["kind"]].append(rr)
        rows["all"].append(rr)
    return {k: sum(v) / len(v) for k, v in rows.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help=f"write {MODEL_FILE.name}")
    parser.add_argument(
        "--hide", choices=("own", "rule"), default="own", help="questions hidden per query"
    )
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--leaves", type=int, default=15)
    args = parser.parse_args()
    kb = bench.load_kb()
    with tempfile.TemporaryDirectory() as tmp:
        build_index(kb, Path(tmp))
        with Searcher(Path(tmp), kb) as searcher:
            searcher._ranker.learned.model = None
            PARAMS["num_leaves"] = args.leaves
            items = collect(searcher, args.hide)
            print(
                f"{len(items)} questions, {sum(any(i['labels']) for i in items)} with a "
                f"relevant rule among the first {DEPTH}"
            )
            hand, learned = [], []
            for fold in range(FOLDS):
                trained = train([it for it in items if it["fold"] != fold], args.rounds)
                valid = [it for it in items if it["fold"] == fold]
                scores = [trained.predict(np.array(it["rows"])) for it in valid]
                hand.append(mrr(valid, None))
                learned.append(mrr(valid, scores))
                print(
                    f"fold {fold}: {len(valid)} questions, MRR hand-made {hand[-1]:.3f}, "
                    f"learned {learned[-1]:.3f}",
                    flush=True,
                )
            print(
                f"cross-validated by rule: hand-made {np.mean(hand):.3f}, learned "
                f"{np.mean(learned):.3f}"
            )
            model = train(items, args.rounds)
            gains = model.feature_importance("gain")
            share = gains / gains.sum()
            print(
                "importances (gain share):",
                ", ".join(
                    f"{n} {s:.3f}"
                    for n, s in sorted(zip(FEATURES, share, strict=True), key=lambda p: -p[1])
                ),
            )
            without = tune_mrr(searcher)
            searcher._ranker.learned.model = model
            with_model = tune_mrr(searcher)
            for name, figures in (("without", without), ("with", with_model)):
                print(
                    f"tuning half {name} the model: "
                    + " ".join(f"{k}={v:.3f}" for k, v in sorted(figures.items()))
                )
            if args.write:
                MODEL_FILE.write_text(model.model_to_string(), encoding="utf-8")
                print(f"wrote {MODEL_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
