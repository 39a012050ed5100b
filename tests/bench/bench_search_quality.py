"""Search quality: MRR and recall@5 per language over tests/search_eval.toml.

Builds the knowledge base (the embedded corpus, plus the official English editions of
../shared/corpus-raw/cr-en when present), indexes it in a temporary folder and runs every query.
Run: ``python tests/bench/bench_search_quality.py [--verbose]``. Targets: MRR >= 0.9 and
recall@5 >= 0.95 in every language.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

from kb.build import build_kb
from kb.knowledge.model import KnowledgeBase
from kb.search import Searcher, build_index
from kb.search.results import Hit
from kb.text.rulenum import try_parse

HERE = Path(__file__).resolve().parent
EVAL = HERE.parent / "search_eval.toml"
CR_EN = HERE.parents[2] / "shared" / "corpus-raw" / "cr-en"
DEPTH = 10


def load_kb() -> KnowledgeBase:
    """The embedded corpus plus the shared English editions (when present)."""
    extra = [CR_EN] if CR_EN.is_dir() else []
    kb, _problems, _notes = build_kb(extra, run_examples_too=False)
    kb.content_hash = kb.content_hash or "bench"
    return kb


def pointed(kb: KnowledgeBase, hit: Hit) -> set[str]:
    """The rules (canonical numbers) a hit stands for."""
    if hit.kind in ("section", "rule", "subrule"):
        return {hit.canonical} if hit.canonical else set()
    if hit.kind == "glossary" and hit.edition:
        entry = kb.glossary.get(hit.edition, {}).get(hit.key)
        return set(entry.rule_refs) if entry else set()
    if hit.kind == "commentary":
        com = next((c for c in kb.commentary if c.id == hit.key), None)
        return set(com.about_rules) if com else set()
    if hit.kind == "tournament":
        return {f"mtr:{hit.number}"}
    return {hit.canonical} if hit.canonical else set()


def covers(expected: str, number: str) -> bool:
    """True if ``number`` is the expected rule or lies below it."""
    if expected == number:
        return True
    a, b = try_parse(expected), try_parse(number)
    return bool(a and b and a.is_ancestor_of(b))


def evaluate(kb: KnowledgeBase, searcher: Searcher, item: dict[str, Any]) -> dict[str, Any]:
    """Reciprocal rank of the first relevant hit and recall of the expected rules in the top 5."""
    result = searcher.search(
        item["query"], lang=item.get("lang"), edition=item.get("edition"), limit=DEPTH
    )
    expect = item["expect"]
    rank = 0
    found: set[str] = set()
    for i, hit in enumerate(result.hits, 1):
        numbers = pointed(kb, hit)
        relevant = [e for e in expect if any(covers(e, n) for n in numbers)]
        if relevant and not rank:
            rank = i
        if i <= 5:
            found.update(relevant)
    return {
        "rr": 1.0 / rank if rank else 0.0,
        "recall": len(found) / len(expect),
        "rank": rank,
        "top": [f"{h.kind[0]}:{h.number or h.key}({h.lang})" for h in result.hits[:5]],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--verbose", action="store_true", help="print every query")
    args = parser.parse_args(argv)
    items = tomllib.loads(EVAL.read_text(encoding="utf-8"))["q"]
    t = time.perf_counter()
    kb = load_kb()
    print(f"knowledge base: {len(kb.editions)} editions ({time.perf_counter() - t:.1f} s)")
    with tempfile.TemporaryDirectory() as tmp:
        stats = build_index(kb, Path(tmp))
        print(
            f"index: {stats['docs']} documents, {stats['bytes'] / 1e6:.1f} MB, "
            f"{stats['seconds']:.2f} s"
        )
        by_lang: dict[str, list[dict[str, Any]]] = defaultdict(list)
        by_tag: dict[str, list[dict[str, Any]]] = defaultdict(list)
        with Searcher(Path(tmp), kb) as searcher:
            for item in items:
                res = evaluate(kb, searcher, item)
                by_lang[item["qlang"]].append(res)
                for tag in item.get("tags", []):
                    by_tag[tag].append(res)
                if args.verbose or res["rr"] < 1.0 or res["recall"] < 1.0:
                    print(
                        f"  rank {res['rank'] or '-':>2} recall {res['recall']:.2f}  "
                        f"{item['query']!r} [{item.get('lang')}] expect {item['expect']} "
                        f"got {res['top']}"
                    )
    ok = True
    print(f"\n{'':8} {'queries':>7} {'MRR':>6} {'R@5':>6}")
    for name, rows in [
        *sorted(by_lang.items()),
        *(("#" + k, v) for k, v in sorted(by_tag.items())),
    ]:
        mrr = sum(r["rr"] for r in rows) / len(rows)
        rec = sum(r["recall"] for r in rows) / len(rows)
        print(f"{name:8} {len(rows):7} {mrr:6.3f} {rec:6.3f}")
        if not name.startswith("#") and (mrr < 0.9 or rec < 0.95):
            ok = False
    print("\ntargets (MRR >= 0.9, recall@5 >= 0.95 per language):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
