"""Search results before and after a change meant to keep them: every query of the evaluation
sets and of the latency benchmark, in several forms (no filter, each language filter, a reader's
language, a second page, rules only, two older English editions, the question's own filters),
written to a JSON file, then compared with an earlier file.

Run: ``python tests/bench/search_snapshot.py OUT.json [--against BEFORE.json]``. Same documents
as the latency benchmark (the embedded corpus and ../shared/corpus-raw/cr-en). A hit is its
kind, number or key, language and edition, score (to 5 significant digits), snippet and
editions; a result adds its total, pages, suggestion and notes. Exit status 1 on any difference.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from kb.build import build_kb
from kb.search import Searcher, build_index

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_search_latency as latency  # noqa: E402

#: The forms each query is searched in.
FORMS: list[dict[str, Any]] = [
    {"limit": 20},
    {"lang": "en"},
    {"lang": "fr"},
    {"lang": "ja"},
    {"prefer_lang": "fr"},
    {"prefer_lang": "ja"},
    {"page": 2},
    {"kind": "rule"},
]


def items() -> list[dict[str, Any]]:
    """Every query to search, with its own filters where its evaluation set gives them."""
    out: list[dict[str, Any]] = []
    for path in latency.EVALS:
        for q in tomllib.loads(path.read_text(encoding="utf-8"))["q"]:
            if q.get("lang") or q.get("edition"):
                out.append(
                    {"query": q["query"], "lang": q.get("lang"), "edition": q.get("edition")}
                )
    out += [{"query": q} for q in latency.queries()]
    return out


def result_of(searcher: Searcher, query: str, form: dict[str, Any]) -> dict[str, Any]:
    """One search's result as plain data."""
    r = searcher.search(query, **form)
    return {
        "total": r.total,
        "pages": r.pages,
        "suggestion": r.suggestion,
        "notes": [n.to_json() for n in r.notes],
        "hits": [
            [
                h.kind,
                h.number or h.key,
                h.lang,
                h.edition,
                float(f"{h.score:.5g}"),
                h.snippet,
                h.editions,
                h.cross_language,
            ]
            for h in r.hits
        ],
    }


def snapshot() -> dict[str, Any]:
    """Every query in every form (the query's own filters alone when it has some)."""
    kb, _problems, _notes = build_kb([latency.CR_EN], run_examples_too=False)
    kb.content_hash = kb.content_hash or "bench"
    # Two English editions, for searches that read the old documents' postings.
    dated = sorted((e for e in kb.editions.values() if e.lang == "en" and e.date), key=_date)
    forms = FORMS + [{"edition": e.id, "limit": 20} for e in (dated[0], dated[len(dated) // 2])]
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        build_index(kb, Path(tmp))
        with Searcher(Path(tmp), kb) as searcher:
            for item in items():
                query = item.pop("query")
                own = [{k: v for k, v in item.items() if v}] if item else forms
                for form in own:
                    key = json.dumps([query, form], ensure_ascii=False, sort_keys=True)
                    out[key] = result_of(searcher, query, form)
    return out


def _date(edition: Any) -> str:
    return edition.date


def compare(before: dict[str, Any], after: dict[str, Any]) -> int:
    """Print the differences; their number."""
    diffs = 0
    for key in sorted(before.keys() | after.keys()):
        a, b = before.get(key), after.get(key)
        if a == b:
            continue
        diffs += 1
        if diffs <= 20:
            print(f"differs: {key}")
            if a and b:
                for name in ("total", "pages", "suggestion", "notes"):
                    if a[name] != b[name]:
                        print(f"  {name}: {a[name]!r} -> {b[name]!r}")
                for i, (x, y) in enumerate(zip(a["hits"], b["hits"], strict=False)):
                    if x != y:
                        print(f"  hit {i}: {x[:5]} -> {y[:5]}")
                if len(a["hits"]) != len(b["hits"]):
                    print(f"  hits: {len(a['hits'])} -> {len(b['hits'])}")
    print(f"{len(before)} searches before, {len(after)} after, {diffs} differ")
    return diffs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("out", type=Path, help="where to write this snapshot (JSON)")
    ap.add_argument("--against", type=Path, help="an earlier snapshot to compare with")
    args = ap.parse_args()
    if not latency.CR_EN.is_dir():
        print(f"skipped: the shared English editions are not at {latency.CR_EN}")
        return 0
    now = snapshot()
    args.out.write_text(json.dumps(now, ensure_ascii=False, indent=0), encoding="utf-8")
    print(f"{len(now)} searches written to {args.out}")
    if args.against:
        before = json.loads(args.against.read_text(encoding="utf-8"))
        return 1 if compare(before, now) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
