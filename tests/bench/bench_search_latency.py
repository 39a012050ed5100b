"""Search latency: our Whoosh search against SQLite FTS5 on the same rule texts and queries.

Loads every shared English edition (../shared/corpus-raw/cr-en) with the embedded corpus, builds
our index and an FTS5 table (``porter unicode61``) of the same rule and glossary texts, then times
the same 300+ queries on both, in one run: FTS5 ranks with bm25 and makes snippets, we do the
whole search (grouping, snippets, counts). Our per-query caches are cleared before each timed
query, so repeated words do not flatter us. Prints p50/p99 for both, the ratio, and the index
build time and size. Targets: our p99 <= 1.5 x FTS5's p99 and our p50 <= 2 ms.
"""

from __future__ import annotations

import re
import sqlite3
import statistics
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from kb.build import build_kb
from kb.search import Searcher, build_index

HERE = Path(__file__).resolve().parent
CR_EN = HERE.parents[2] / "shared" / "corpus-raw" / "cr-en"
EVAL = HERE.parent / "search_eval.toml"

# Everyday rules vocabulary: single words, pairs and questions are made from it.
WORDS = """priority stack trigger triggered ability abilities mana land creature damage combat
attack attacking block blocker blocking player opponent spell cast counter target graveyard
library hand battlefield exile token copy permanent artifact enchantment planeswalker loyalty
sorcery instant flash haste trample deathtouch lifelink vigilance hexproof indestructible
flying reach menace ward protection equip aura sacrifice destroy discard draw shuffle reveal
untap upkeep cleanup phase step turn main beginning end legendary commander sideboard mulligan
cost kicker cycling morph suspend foretell companion split second life poison counters
replacement prevention effect continuous layer timestamp dependency controller owner"""


def queries() -> list[str]:
    """300+ queries: the evaluation set, words, pairs, phrases, prefixes, questions, numbers."""
    out = [q["query"] for q in tomllib.loads(EVAL.read_text(encoding="utf-8"))["q"]]
    words = WORDS.split()
    out += words
    out += [f"{a} {b}" for a, b in zip(words[::2], words[1::2], strict=False)]
    out += [f'"{a} {b}"' for a, b in zip(words[1::3], words[2::3], strict=False)]
    out += [f"{w[:4]}*" for w in words[::4]]
    out += [f"what happens when {a} {b}" for a, b in zip(words[::5], words[3::5], strict=False)]
    out += [f"{a} {b} {c}" for a, b, c in zip(words[::3], words[1::3], words[2::3], strict=False)]
    out += ["117.3b", "rule 704.5a", "702.19c", "601.2", "r613.1"]
    return out


def fts_query(text: str) -> str:
    """The same words as an FTS5 expression: OR of the words (phrases and prefixes kept)."""
    parts = re.findall(r'"[^"]+"|[\w.*]+', text)
    terms = []
    for part in parts:
        if part.startswith('"'):
            terms.append(part)
        elif part.endswith("*"):
            terms.append(re.sub(r"\W", "", part) + "*")
        else:
            word = re.sub(r"\W", "", part)
            if word and word.upper() not in ("AND", "OR", "NOT"):
                terms.append(f'"{word}"')
    return " OR ".join(terms) or '""'


def build_fts(kb) -> tuple[sqlite3.Connection, float]:
    """An in-memory FTS5 table of every rule and glossary text of every edition."""
    started = time.perf_counter()
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE VIRTUAL TABLE rules USING fts5(edition UNINDEXED, number UNINDEXED, title, body,"
        " tokenize='porter unicode61')"
    )
    rows = []
    for ed, table in kb.rules.items():
        for rule in table.values():
            rows.append((ed, rule.number, rule.title or "", " ".join([rule.text, *rule.examples])))
    for ed, table in kb.glossary.items():
        for entry in table.values():
            rows.append((ed, entry.key, entry.term, entry.definition))
    db.executemany("INSERT INTO rules VALUES (?, ?, ?, ?)", rows)
    db.commit()
    return db, time.perf_counter() - started


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def main() -> int:
    if not CR_EN.is_dir():
        print(f"skipped: the shared English editions are not at {CR_EN}")
        return 0
    kb, _problems, _notes = build_kb([CR_EN], run_examples_too=False)
    kb.content_hash = kb.content_hash or "bench"
    qs = queries()
    print(
        f"{len(kb.editions)} editions, {sum(len(t) for t in kb.rules.values())} rules, "
        f"{len(qs)} queries"
    )
    db, fts_build = build_fts(kb)
    with tempfile.TemporaryDirectory() as tmp:
        stats = build_index(kb, Path(tmp))
        print(
            f"our index: {stats['docs']} documents, {stats['bytes'] / 1e6:.1f} MB, "
            f"built in {stats['seconds']:.2f} s (FTS5 in memory: {fts_build:.2f} s)"
        )
        with Searcher(Path(tmp), kb) as searcher:
            for q in qs[:20]:  # warm the process (dictionaries, vocabularies), not the queries
                searcher.search(q, lang="en")
                db.execute(
                    "SELECT number FROM rules WHERE rules MATCH ? ORDER BY bm25(rules) LIMIT 10",
                    (fts_query(q),),
                ).fetchall()
            ours: list[float] = []
            theirs: list[float] = []
            for q in qs:
                searcher.clear_caches()
                t = time.perf_counter()
                searcher.search(q, lang="en")
                ours.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                db.execute(
                    "SELECT edition, number, snippet(rules, 3, '<mark>', '</mark>', '…', 24),"
                    " bm25(rules) FROM rules WHERE rules MATCH ? ORDER BY bm25(rules) LIMIT 10",
                    (fts_query(q),),
                ).fetchall()
                db.execute(
                    "SELECT count(*) FROM rules WHERE rules MATCH ?", (fts_query(q),)
                ).fetchone()
                theirs.append((time.perf_counter() - t) * 1000)
    p50, p99 = percentile(ours, 50), percentile(ours, 99)
    f50, f99 = percentile(theirs, 50), percentile(theirs, 99)
    print(f"ours : p50 {p50:.2f} ms  p99 {p99:.2f} ms  mean {statistics.mean(ours):.2f} ms")
    print(f"FTS5 : p50 {f50:.2f} ms  p99 {f99:.2f} ms  mean {statistics.mean(theirs):.2f} ms")
    print(f"ratio: p50 {p50 / f50:.2f}x  p99 {p99 / f99:.2f}x")
    slow = sorted(zip(ours, qs, strict=True), reverse=True)[:5]
    print("slowest:", ", ".join(f"{q!r} {ms:.1f} ms" for ms, q in slow))
    met = p99 <= 1.5 * f99 and p50 <= 2.0
    print("targets (p99 <= 1.5 x FTS5 p99, p50 <= 2 ms):", "met" if met else "NOT met")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
