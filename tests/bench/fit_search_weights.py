"""Fit the ranker's hand-set constants on the TUNING half, with k-fold cross-validation inside it.

The knowledge base and index are built once (as ``bench_search_eval.py`` builds them); each
trial sets the constants by attribute on their modules (:mod:`kb.search.ranking`,
:mod:`kb.search.compiler`, :mod:`kb.search.understand`), clears the compiler's caches when a
constant read at compile time changed, and searches every tuning query. With ``--build``, the
index build's constants (BM25's, :mod:`kb.search.postings`; the priors of
:mod:`kb.search.indexer`) are fitted too, the index built again when one changes. Coordinate
ascent tries a few values per constant, a few passes, and keeps a value only when it raises
the training MRR (recall@5 breaks ties; ``--gain``: by at least that much) and no kind of
question loses more than ``--guard`` MRR on the training queries (a gain in English paid for
by Japanese is no gain).

The figure to trust is the held-out one: the tuning queries are cut into ``--folds`` folds
(stratified by kind, fixed seed); each fold is scored with the constants fitted on the others,
and those held-out scores are pooled. Printed per kind: the current constants, the constants
fitted on all the tuning queries (scored on them: optimistic), and the held-out figure;
``--each`` cross-validates each constant alone, the others kept. The test half is never read
here: report it with ``bench_search_eval.py`` after adopting a fit.

Run: ``python tests/bench/fit_search_weights.py [--folds 5] [--passes 2] [--params A,B]
[--guard 0.02] [--gain 0.0] [--build] [--each]``.

Measured (2026-11-28, MRR / R@5 on the 209 tuning queries; current = the constants as set):

- all 23 search-time constants, 2 passes: current 0.716/0.809, fitted on all 0.741/0.806,
  held out 0.702/0.809 (cross 0.632 -> 0.588, fr 0.737 -> 0.707 held out): no refit adopted.
- the build's 7 (``--build --params K1,B,...``): fitted 0.719/0.804, held out 0.704/0.804.
- ``--each``: no constant alone gains more than 0.003 held out (CONCEPT_BOOST 3.0: 0.719,
  COMMENTARY_DEMOTION 0.25: 0.718; the two together 0.717): noise, not adopted.
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

from bench_search_eval import DEPTH, KINDS, load, load_kb, score_hits

from kb.knowledge.model import KnowledgeBase
from kb.search import Searcher, build_index
from kb.search import compiler as compiler_mod
from kb.search import indexer as indexer_mod
from kb.search import postings as postings_mod
from kb.search import ranking as ranking_mod
from kb.search import understand as understand_mod

#: (module, constant, values tried). The current value is always among those tried.
GRID: list[tuple[Any, str, tuple[float, ...]]] = [
    (ranking_mod, "COVERAGE_FLOOR", (0.1, 0.2, 0.3, 0.4, 0.5)),
    (ranking_mod, "PROXIMITY", (0.0, 0.25, 0.5, 1.0, 1.5)),
    (ranking_mod, "WINDOW", (2, 3, 4, 6)),
    (ranking_mod, "REVERSED", (0.0, 0.5, 1.0)),
    (ranking_mod, "DEFINITION_ASKED", (1.0, 1.25, 1.5, 2.0, 3.0)),
    (ranking_mod, "DEFINITION_UNASKED", (0.4, 0.55, 0.7, 0.85, 1.0)),
    (ranking_mod, "SUBJECT_WORDS", (0, 2, 3, 5)),
    (ranking_mod, "SAME_LANG", (1.0, 1.5, 2.0, 3.0)),
    (ranking_mod, "TOURNAMENT_UNWANTED", (0.25, 0.5, 0.75, 1.0)),
    (ranking_mod, "EXAMPLE_DEMOTION", (0.1, 0.2, 0.3, 0.5)),
    (ranking_mod, "EXAMPLE_VOTE", (0.0, 0.2, 0.4, 0.6, 0.8)),
    (ranking_mod, "EXAMPLE_VOTERS", (1, 2, 3, 5)),
    (ranking_mod, "COMMENTARY_DEMOTION", (0.25, 0.5, 0.75, 1.0)),
    (ranking_mod, "LANG_FUSION", (0.0, 0.25, 0.5, 0.75, 1.0)),
    (ranking_mod, "OPENING_DEFINED", (1.0, 1.15, 1.3, 1.5, 2.0)),
    (ranking_mod, "OPENING", (1.0, 1.05, 1.1, 1.2, 1.35)),
    (ranking_mod, "SIBLING_DECAY", (0.85, 0.9, 0.94, 0.97, 1.0)),
    (ranking_mod, "OPENING_MIN_BOOST", (1.2, 1.5, 2.0)),
    (ranking_mod, "RERANK", (20, 40, 60)),
    (compiler_mod, "CONCEPT_BOOST", (1.5, 2.0, 2.5, 3.0, 4.0)),
    (compiler_mod, "RELATIVE", (0.0, 0.5, 1.0, 2.0)),
    (compiler_mod, "FINAL", (1.0, 1.5, 2.0, 3.0)),
    (compiler_mod, "SETUP", (0.0, 0.25, 0.5, 0.75, 1.0)),
    (compiler_mod, "WHEN_BOOST", (1.0, 1.4, 1.8, 2.5)),
    (understand_mod, "SPECIFIC", (20, 40, 80)),
]
#: Constants read while compiling a query: changing one invalidates the compiled queries.
COMPILE_TIME = {
    "CONCEPT_BOOST",
    "RELATIVE",
    "FINAL",
    "SETUP",
    "WHEN_BOOST",
    "SPECIFIC",
}

#: Constants read while building the index (``--build``): a trial changing one rebuilds it
#: (about 2 s). "TITLE_WEIGHT" stands for the three title fields' weight in FIELD_WEIGHT.
#: DEFINITION_PRIOR stays above 1.0: the build tells a defining rule by its prior.
BUILD_GRID: list[tuple[Any, str, tuple[float, ...]]] = [
    (postings_mod, "K1", (0.8, 1.2, 1.6, 2.0)),
    (postings_mod, "B", (0.3, 0.5, 0.75)),
    (postings_mod, "EXTRA", (0.25, 0.5, 0.75)),
    (postings_mod, "TITLE_WEIGHT", (1.0, 1.5, 2.0, 3.0)),
    (indexer_mod, "HEADING_PRIOR", (0.4, 0.6, 0.8, 1.0)),
    (indexer_mod, "LIST_INTRO_PRIOR", (0.5, 0.75, 1.0)),
    (indexer_mod, "DEFINITION_PRIOR", (1.1, 1.2, 1.4)),
]
BUILD_TIME = {name for _mod, name, _values in BUILD_GRID}
TITLES = ("title_en", "title_fr", "title_ja")

Setting = tuple[float, ...]


def get_constant(mod: Any, name: str) -> Any:
    """A constant's value (TITLE_WEIGHT: the English title field's weight)."""
    if name == "TITLE_WEIGHT":
        return postings_mod.FIELD_WEIGHT["title_en"]
    return getattr(mod, name)


def set_constant(mod: Any, name: str, value: Any) -> None:
    """Set a constant on its module (TITLE_WEIGHT: every title field's weight)."""
    if name == "TITLE_WEIGHT":
        for field in TITLES:
            postings_mod.FIELD_WEIGHT[field] = value
    else:
        setattr(mod, name, value)


class Trials:
    """Scores every tuning query under a setting of the constants, remembering each setting's
    scores (folds share most of their trials); builds the index again in ``root`` when a
    build-time constant changed."""

    def __init__(
        self, kb: KnowledgeBase, root: Path, queries: list[dict[str, Any]], grid: list[Any]
    ) -> None:
        self.kb = kb
        self.root = root
        self.queries = queries
        self.grid = grid
        self.memo: dict[Setting, list[tuple[float, float]]] = {}
        self.last: Setting | None = None
        self.searcher: Searcher | None = None
        self.runs = 0
        self.builds = 0

    def current(self) -> Setting:
        """The constants as the modules hold them now."""
        return tuple(get_constant(mod, name) for mod, name, _values in self.grid)

    def close(self) -> None:
        """Close the open index."""
        if self.searcher is not None:
            self.searcher.close()
            self.searcher = None

    def _open(self) -> Searcher:
        """Build the index for the constants as set, in a new folder, and open it."""
        self.close()
        self.builds += 1
        folder = self.root / f"index{self.builds}"
        indexer_mod._text_prior.cache_clear()  # remembers each text's prior
        build_index(self.kb, folder)
        self.searcher = Searcher(folder, self.kb)
        return self.searcher

    def scores(self, setting: Setting) -> list[tuple[float, float]]:
        """(reciprocal rank, recall@5) of every query under ``setting``."""
        found = self.memo.get(setting)
        if found is not None:
            return found
        stale = rebuild = self.last is None
        for (mod, name, _values), value, old in zip(
            self.grid, setting, self.last or setting, strict=True
        ):
            set_constant(mod, name, value)
            stale = stale or (name in COMPILE_TIME and value != old)
            rebuild = rebuild or (name in BUILD_TIME and value != old)
        if rebuild or self.searcher is None:
            self._open()
        elif stale:
            self.searcher.clear_caches()
            # What the compiler keeps of single words across queries (their variants, clauses).
            words = self.searcher._compiler
            for cache in (words._variant_cache, words._clause_cache, words._phrase_cache):
                cache.clear()
        assert self.searcher is not None
        self.last = setting
        out = []
        for item in self.queries:
            result = self.searcher.search(item["query"], limit=DEPTH + 10)
            rank, recall, _top = score_hits(result.hits, item["expect"])
            out.append((1.0 / rank if rank else 0.0, recall))
        self.memo[setting] = out
        self.runs += 1
        return out


def figures(
    scores: list[tuple[float, float]], kinds: list[str], idx: list[int]
) -> dict[str, tuple[float, float, int]]:
    """MRR, recall@5 and count per kind (and "all") over the queries ``idx``."""
    by: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for i in idx:
        by[kinds[i]].append(scores[i])
        by["all"].append(scores[i])
    return {
        k: (sum(r for r, _ in v) / len(v), sum(c for _, c in v) / len(v), len(v))
        for k, v in by.items()
    }


def better(new: dict[str, Any], old: dict[str, Any], guard: float, gain: float) -> bool:
    """True if ``new`` beats ``old`` by more than ``gain`` MRR (recall@5 breaking ties when
    ``gain`` is 0) without any kind of at least five queries losing more than ``guard`` MRR."""
    for kind, (mrr, _rec, n) in old.items():
        if kind != "all" and n >= 5 and new[kind][0] < mrr - guard:
            return False
    a, b = new["all"], old["all"]
    if gain > 0:
        return a[0] > b[0] + gain
    return a[0] > b[0] + 1e-9 or (abs(a[0] - b[0]) <= 1e-9 and a[1] > b[1] + 1e-9)


def ascend(
    trials: Trials,
    start: Setting,
    idx: list[int],
    kinds: list[str],
    passes: int,
    guard: float,
    gain: float = 0.0,
    coords: list[int] | None = None,
) -> Setting:
    """Coordinate ascent from ``start`` on the queries ``idx`` over the constants ``coords``
    (all by default): a step is taken only when it gains more than ``gain`` MRR there (a
    larger ``gain`` fits fewer constants, less noise)."""
    best = start
    best_fig = figures(trials.scores(best), kinds, idx)
    for _ in range(passes):
        moved = False
        for j, (_mod, _name, values) in enumerate(trials.grid):
            if coords is not None and j not in coords:
                continue
            for value in values:
                if value == best[j]:
                    continue
                trial = (*best[:j], value, *best[j + 1 :])
                fig = figures(trials.scores(trial), kinds, idx)
                if better(fig, best_fig, guard, gain):
                    best, best_fig, moved = trial, fig, True
        if not moved:
            break
    return best


def folds_of(kinds: list[str], k: int, seed: int) -> list[list[int]]:
    """``k`` folds of query indices, each kind dealt round-robin after a seeded shuffle."""
    rng = random.Random(seed)
    out: list[list[int]] = [[] for _ in range(k)]
    by: dict[str, list[int]] = defaultdict(list)
    for i, kind in enumerate(kinds):
        by[kind].append(i)
    n = 0
    for kind in sorted(by):
        members = by[kind]
        rng.shuffle(members)
        for i in members:
            out[n % k].append(i)
            n += 1
    return out


def show(name: str, fig: dict[str, tuple[float, float, int]]) -> None:
    """One line of MRR / R@5 per kind."""
    cells = [f"{k} {fig[k][0]:.3f}/{fig[k][1]:.3f}" for k in (*KINDS, "all") if k in fig]
    print(f"{name:22} " + "  ".join(cells), flush=True)


def cross_validate(
    trials: Trials,
    base: Setting,
    folds: list[list[int]],
    kinds: list[str],
    args: argparse.Namespace,
    coords: list[int] | None = None,
) -> tuple[list[tuple[float, float]], list[Setting], Setting]:
    """The held-out scores of every query (each fold scored with the constants ``coords``
    fitted on the others, from ``base``), each fold's fit, and the fit on all the queries."""
    everything = list(range(len(kinds)))
    held: list[tuple[float, float]] = [(0.0, 0.0)] * len(kinds)
    fits = []
    for test_idx in folds:
        chosen = set(test_idx)
        train = [i for i in everything if i not in chosen]
        fit = ascend(trials, base, train, kinds, args.passes, args.guard, args.gain, coords)
        fits.append(fit)
        scores = trials.scores(fit)
        for i in test_idx:
            held[i] = scores[i]
    full = ascend(trials, base, everything, kinds, args.passes, args.guard, args.gain, coords)
    return held, fits, full


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--guard", type=float, default=0.02)
    parser.add_argument("--gain", type=float, default=0.0, help="least MRR gain of a step")
    parser.add_argument("--params", default="", help="comma-separated constants (default all)")
    parser.add_argument("--build", action="store_true", help="also the build-time constants")
    parser.add_argument(
        "--each", action="store_true", help="cross-validate each constant alone, the rest kept"
    )
    args = parser.parse_args(argv)
    grid = GRID + BUILD_GRID if args.build else GRID
    if args.params:
        wanted = set(args.params.split(","))
        unknown = wanted - {name for _m, name, _v in GRID + BUILD_GRID}
        if unknown:
            parser.error(f"unknown constants: {', '.join(sorted(unknown))}")
        grid = [row for row in GRID + BUILD_GRID if row[1] in wanted]
    started = time.process_time()
    kb = load_kb()
    queries = load("tune")
    kinds = [q["kind"] for q in queries]
    everything = list(range(len(queries)))
    folds = folds_of(kinds, args.folds, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        trials = Trials(kb, Path(tmp), queries, grid)
        try:
            base = trials.current()
            base_scores = trials.scores(base)
            show("current", figures(base_scores, kinds, everything))
            if args.each:
                print("\nconstant              current  fitted(all)  per fold   held-out MRR/R@5")
                for j, row in enumerate(grid):
                    held, fits, full = cross_validate(trials, base, folds, kinds, args, [j])
                    mrr, rec, _n = figures(held, kinds, everything)["all"]
                    per_fold = " ".join(str(fit[j]) for fit in fits)
                    print(
                        f"{row[1]:21} {base[j]!s:8} {full[j]!s:12} {per_fold:10} "
                        f"{mrr:.3f}/{rec:.3f}",
                        flush=True,
                    )
            else:
                held, fits, full = cross_validate(trials, base, folds, kinds, args)
                for f, test_idx in enumerate(folds):
                    show(f"fold {f} held-out base", figures(base_scores, kinds, test_idx))
                    show(f"fold {f} held-out fit", figures(trials.scores(fits[f]), kinds, test_idx))
                show("fitted (on all tune)", figures(trials.scores(full), kinds, everything))
                show("held-out (CV)", figures(held, kinds, everything))
                print("\nconstant              current  fitted(all)  per fold")
                for j, (_mod, name, _values) in enumerate(grid):
                    per_fold = " ".join(str(fit[j]) for fit in fits)
                    print(f"{name:21} {base[j]!s:8} {full[j]!s:12} {per_fold}")
            print(
                f"\n{trials.runs} settings searched, {trials.builds} index builds, "
                f"{time.process_time() - started:.0f} s CPU"
            )
        finally:
            trials.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
