"""Each hand-written part of kb.search against the library that could do it, quality and latency.

One run, the same index and inputs for both sides:

- spelling: ``kb.search.spelling.Speller`` (symspellpy since this benchmark: the hand-written
  deletion index it replaced measured 0.871 top-1 against symspellpy's 0.937, p50 51 against
  34 µs) against Whoosh's ``reader.corrector(field).suggest`` and rapidfuzz
  (``process.extractOne`` with Damerau-Levenshtein), over the index's English vocabulary. Quality: top-1 correction
  equals the intended word, on the players' typos of the evaluation sets plus seeded random
  one- and two-letter edits of frequent words.
- highlighting: ``kb.search.highlight.highlight`` against ``whoosh.highlight.highlight``
  (ContextFragmenter, HtmlFormatter, one fragment of the same width) on the top hits of the evaluation questions. Quality: share
  of the wanted terms present in a text that the snippet marks.
- query parsing: ``kb.search.query.parse`` against ``whoosh.qparser.QueryParser`` (OrGroup) on
  the evaluation questions and hostile inputs. Quality: parses without error and keeps every
  word of the input.
- scoring: ``kb.search.postings.Postings.evaluate`` (BM25F weights baked in at build time)
  against Whoosh's searcher with its BM25F, on the same compiled queries (phrases as AND for
  Whoosh, whose fields keep no positions). Quality: MRR of the raw top 10 (before reranking)
  over the evaluation questions with rule answers.

Run: ``python tests/bench/bench_search_libraries.py`` (rapidfuzz is optional:
``pip install rapidfuzz``; when missing it is reported and skipped).
"""

from __future__ import annotations

import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from whoosh import highlight as whoosh_highlight
from whoosh import qparser
from whoosh import query as wq

from kb.knowledge.model import LANGS
from kb.search import Searcher, build_index
from kb.search import query as qp
from kb.search.analysis import EN_STOP, SpanTokenizer, analyze_en, marker, terms
from kb.search.highlight import highlight
from kb.search.postings import Evaluation
from kb.text.rulenum import try_parse

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_search_eval import load, load_kb  # noqa: E402

HOSTILE = [
    '"unbalanced quote',
    "((priority",
    "stack))",
    "priority AND",
    "OR OR OR",
    "NOT",
    "-",
    "title:priority body:stack",
    "a" * 600,
    "prio* st*",
    "\x00\x01 priority \u202e",
    "<script>alert(1)</script>",
    "trample -deathtouch",
    "'; DROP TABLE rules; --",
    "*",
    "^~!@#$%",
]


def timed(fn: Callable[[Any], Any], items: list[Any]) -> tuple[list[Any], float, float]:
    """Results of ``fn`` over ``items`` and the p50 / p99 time per call in microseconds."""
    out, times = [], []
    for item in items:
        t = time.perf_counter()
        out.append(fn(item))
        times.append((time.perf_counter() - t) * 1e6)
    times.sort()
    return out, statistics.median(times), times[min(len(times) - 1, int(0.99 * len(times)))]


def row(name: str, quality: float, p50: float, p99: float, unit: str = "µs") -> None:
    print(f"  {name:30} quality {quality:6.3f}   p50 {p50:9.1f} {unit}   p99 {p99:9.1f} {unit}")


# ---- spelling ------------------------------------------------------------------------------
def typo_pairs(vocab: dict[str, int]) -> list[tuple[str, str]]:
    """(typo, intended) pairs: the evaluation's misspelt words, then seeded random edits."""
    pairs = [
        ("acitons", "actions"),
        ("triggerd", "triggered"),
        ("abilty", "ability"),
        ("deathtuch", "deathtouch"),
        ("tramlpe", "trample"),
        ("sumoning", "summoning"),
        ("legendery", "legendary"),
        ("respnd", "respond"),
        ("spel", "spell"),
        ("indestructable", "indestructible"),
        ("toughnes", "toughness"),
        ("hexprof", "hexproof"),
        ("comander", "commander"),
        ("mulligun", "mulligan"),
        ("plainswalker", "planeswalker"),
        ("strik", "strike"),
        ("replacment", "replacement"),
        ("creture", "creature"),
        ("counterd", "countered"),
        ("lifelinck", "lifelink"),
        ("vigilence", "vigilance"),
        ("trampel", "trample"),
        ("priorty", "priority"),
        ("exiel", "exile"),
        ("flashbak", "flashback"),
        ("menance", "menace"),
        ("abilites", "abilities"),
        ("survail", "surveil"),
        ("phazing", "phasing"),
        ("proteccion", "protection"),
        ("damge", "damage"),
        ("defendr", "defender"),
    ]
    pairs = [(t, w) for t, w in pairs if w in vocab]
    rng = random.Random(11)
    frequent = sorted((w for w in vocab if w.isalpha() and len(w) >= 5), key=lambda w: -vocab[w])
    letters = "abcdefghijklmnopqrstuvwxyz"
    for word in rng.sample(frequent[:1500], 300):
        typo = word
        for _ in range(1 if len(word) < 8 else rng.choice((1, 2))):
            i = rng.randrange(len(typo))
            op = rng.choice(("delete", "insert", "replace", "swap"))
            if op == "delete":
                typo = typo[:i] + typo[i + 1 :]
            elif op == "insert":
                typo = typo[:i] + rng.choice(letters) + typo[i:]
            elif op == "replace":
                typo = typo[:i] + rng.choice(letters) + typo[i + 1 :]
            elif i < len(typo) - 1:
                typo = typo[:i] + typo[i + 1] + typo[i] + typo[i + 2 :]
        if typo != word and typo not in vocab:
            pairs.append((typo, word))
    return pairs


def bench_spelling(searcher: Searcher) -> None:
    field = "plain_en"
    speller = searcher._speller
    vocab = speller.vocabulary(field)
    pairs = typo_pairs(vocab)
    typos = [t for t, _ in pairs]
    print(f"\nspelling: {len(pairs)} typos over a vocabulary of {len(vocab)} words")
    speller.corrections(field, "zzzzzz")  # builds the deletion index once
    ours, p50, p99 = timed(lambda w: (speller.corrections(field, w, 1) or [None])[0], typos)
    row("kb Speller (symspellpy)", _accuracy(ours, pairs), p50, p99)
    corrector = searcher._reader.corrector(field)
    theirs, p50, p99 = timed(
        lambda w: (list(corrector.suggest(w, limit=1, maxdist=2 if len(w) >= 8 else 1)) or [None])[
            0
        ],
        typos,
    )
    row("Whoosh corrector", _accuracy(theirs, pairs), p50, p99)
    try:
        from rapidfuzz import process
        from rapidfuzz.distance import DamerauLevenshtein

        words = list(vocab)
        found, p50, p99 = timed(
            lambda w: (
                process.extractOne(
                    w,
                    words,
                    scorer=DamerauLevenshtein.distance,
                    score_cutoff=2 if len(w) >= 8 else 1,
                )
                or [None]
            )[0],
            typos,
        )
        row("rapidfuzz extractOne", _accuracy(found, pairs), p50, p99)
    except ImportError:
        print("  rapidfuzz: not installed, skipped")


def _accuracy(found: list[str | None], pairs: list[tuple[str, str]]) -> float:
    return sum(1 for f, (_, w) in zip(found, pairs, strict=True) if f == w) / len(pairs)


# ---- highlighting --------------------------------------------------------------------------
def bench_highlight(kb: Any, searcher: Searcher, questions: list[str]) -> None:
    cases: list[tuple[str, set[str]]] = []
    for q in questions:
        compiled = searcher._compile(q, ("en",), "en")
        wanted = compiled.marks.get("en", set())
        if not wanted:
            continue
        for hit in searcher.search(q, lang="en", limit=5).hits:
            if hit.kind in ("section", "rule", "subrule") and hit.edition:
                rule = kb.rules[hit.edition][hit.number]
                body = "\n".join([rule.text, *rule.examples]).strip()
                if body:
                    cases.append((body, wanted))
    print(f"\nhighlighting: {len(cases)} (text, query terms) pairs from the top hits")
    ours, p50, p99 = timed(lambda c: highlight(c[0], c[1], [marker("en", c[1])]), cases)
    row("kb highlight", _marked(ours, cases), p50, p99)
    analyzer = SpanTokenizer("en")
    fragmenter = whoosh_highlight.ContextFragmenter(maxchars=220, surround=60)
    formatter = whoosh_highlight.HtmlFormatter(tagname="mark", between="…")
    theirs, p50, p99 = timed(
        lambda c: whoosh_highlight.highlight(
            c[0], frozenset(c[1]), analyzer, fragmenter, formatter, top=1
        ),
        cases,
    )
    row("Whoosh highlight", _marked(theirs, cases), p50, p99)


def _marked(snippets: list[str], cases: list[tuple[str, set[str]]]) -> float:
    """Share of the wanted terms present in each text that the snippet marks (mean)."""
    shares = []
    for snippet, (text, wanted) in zip(snippets, cases, strict=True):
        present = {t for t, _, _ in analyze_en(text)} & wanted
        if not present:
            continue
        marked = set()
        for m in re.finditer(r"<mark[^>]*>(.*?)</mark>", snippet):
            marked.update(t for t, _, _ in analyze_en(m.group(1)))
        shares.append(len(marked & present) / len(present))
    return statistics.mean(shares) if shares else 0.0


# ---- query parsing ---------------------------------------------------------------------------
def bench_parsing(searcher: Searcher, questions: list[str]) -> None:
    inputs = questions + HOSTILE
    print(f"\nquery parsing: {len(inputs)} inputs ({len(HOSTILE)} hostile)")
    ours, p50, p99 = timed(_ours_parse, inputs)
    row("kb query.parse", _kept(ours, inputs), p50, p99)
    parser = qparser.QueryParser("body_en", searcher._ix.schema, group=qparser.OrGroup)
    theirs, p50, p99 = timed(lambda text: _whoosh_parse(parser, text), inputs)
    row("Whoosh QueryParser", _kept(theirs, inputs), p50, p99)


def _ours_parse(text: str) -> set[str] | None:
    parsed = qp.parse(text)
    return {t for w in qp.words(parsed.tree) for t in terms(w.text, "en")}


def _whoosh_parse(parser: qparser.QueryParser, text: str) -> set[str] | None:
    try:
        q = parser.parse(text[: qp.MAX_QUERY])
    except Exception:  # a parser that raises fails the input
        return None
    out: set[str] = set()
    for _field, term in q.iter_all_terms() if hasattr(q, "iter_all_terms") else q.all_terms():
        out.add(term.decode() if isinstance(term, bytes) else str(term))
    return out


def _kept(parsed: list[set[str] | None], inputs: list[str]) -> float:
    """Share of inputs parsed without error whose every word (outside operators) is kept."""
    good = 0
    for got, text in zip(parsed, inputs, strict=True):
        if got is None:
            continue
        words = re.sub(r"\b(?:AND|OR|NOT)\b|\w+:", " ", text[: qp.MAX_QUERY])
        wanted = {t for t, _, _ in analyze_en(words) if t not in EN_STOP and not t.startswith(".")}
        wanted = {t for t in wanted if not re.fullmatch(r"\d+", t)}
        if wanted <= got or all(any(g.startswith(w[:3]) for g in got) for w in wanted):
            good += 1
    return good / len(inputs)


# ---- scoring -------------------------------------------------------------------------------
def whoosh_scored_index(kb: Any, folder: Path) -> Any:
    """A Whoosh index of the documents kb searches, with the scored fields kb's own index leaves
    out of Whoosh (they live in kb's postings): the same documents, numbered alike."""
    from whoosh import index as whoosh_index

    from kb.search.indexer import _fields, documents, make_schema

    ix = whoosh_index.create_in(str(folder), make_schema(), indexname="scored")
    writer = ix.writer(limitmb=256)
    for doc in documents(kb):
        writer.add_document(**_fields(doc))
    writer.commit()
    return ix


def bench_scoring(kb: Any, searcher: Searcher, items: list[dict[str, Any]]) -> None:
    items = [i for i in items if i["kind"] != "number"]
    compiled = [(searcher._compile(i["query"], LANGS, None), i) for i in items]
    compiled = [(c, i) for c, i in compiled if c.query is not None]
    stop = searcher._stop
    groups = searcher._groups
    print(f"\nscoring: {len(compiled)} compiled questions (raw top 10, before reranking)")
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        ix = whoosh_scored_index(kb, Path(tmp))
        print(
            f"  (Whoosh index of the same {ix.doc_count()} documents: "
            f"{time.perf_counter() - started:.0f} s)"
        )
        with ix.searcher() as whoosh_searcher:

            def ours(pair: tuple[Any, dict[str, Any]]) -> list[int]:
                scores = searcher._index.evaluate(pair[0].query, False, Evaluation())
                return [d for d, _ in sorted(scores.items(), key=lambda x: -x[1])[:50]]

            def theirs(pair: tuple[Any, dict[str, Any]]) -> list[int]:
                results = whoosh_searcher.search(_no_phrases(pair[0].query), limit=100)
                return [hit.docnum for hit in results if hit.docnum < stop][:50]

            for name, fn in (("kb Postings (BM25F)", ours), ("Whoosh BM25F searcher", theirs)):
                ranked, p50, p99 = timed(fn, compiled)
                rr = [
                    _rr(docs, groups, item["expect"])
                    for docs, (_, item) in zip(ranked, compiled, strict=True)
                ]
                row(name, statistics.mean(rr), p50 / 1000, p99 / 1000, "ms")
        ix.close()


def _no_phrases(q: wq.Query) -> wq.Query:
    """The query with phrases as conjunctions (Whoosh's fields here keep no positions)."""
    if isinstance(q, wq.Phrase):
        return wq.And([wq.Term(q.fieldname, w) for w in q.words], boost=q.boost)
    if isinstance(q, wq.Or):
        return wq.Or([_no_phrases(s) for s in q.subqueries], boost=q.boost)
    if isinstance(q, wq.And):
        return wq.And([_no_phrases(s) for s in q.subqueries], boost=q.boost)
    if isinstance(q, wq.AndMaybe):
        return wq.AndMaybe(_no_phrases(q.a), _no_phrases(q.b))
    if isinstance(q, wq.AndNot):
        return wq.AndNot(_no_phrases(q.a), _no_phrases(q.b))
    return q


def _rr(docs: list[int], groups: list[str], expect: list[str]) -> float:
    seen: list[str] = []
    for doc in docs:
        group = groups[doc]
        if group in seen or not group.startswith("r:"):
            continue
        seen.append(group)
        number = try_parse(group[2:])
        if number and any(
            (e == group[2:]) or ((a := try_parse(e)) is not None and a.is_ancestor_of(number))
            for e in expect
        ):
            return 1.0 / len(seen)
        if len(seen) >= 10:
            break
    return 0.0


def main() -> int:
    kb = load_kb()
    items = load("tune") + load("test")
    questions = [i["query"] for i in items if i["kind"] in ("en", "typo")]
    with tempfile.TemporaryDirectory() as tmp:
        build_index(kb, Path(tmp))
        with Searcher(Path(tmp), kb) as searcher:
            bench_spelling(searcher)
            bench_highlight(kb, searcher, questions)
            bench_parsing(searcher, [i["query"] for i in items])
            bench_scoring(kb, searcher, items)
    return 0


if __name__ == "__main__":
    sys.exit(main())
