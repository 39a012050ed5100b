"""Searching the index: query compilation per language, cross-language expansion, grouping, paging.

One :class:`Searcher` keeps one Whoosh searcher open for its lifetime (opening a reader costs far
more than a query) and answers from any thread under a lock. Filters are plain sets of document
numbers computed once from ``meta.json``; rule-number queries never touch the index.

Default edition: a search without an edition sees, for each rule (and glossary term) and language,
its newest version in that language. The French and Japanese texts are partial quotes, so a rule
quoted only in an older French edition is still found in French.
"""

from __future__ import annotations

import heapq
import json
import math
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

from whoosh import index as whoosh_index
from whoosh import query as wq

from kb.model import LANGS, Edition, KnowledgeBase, Rule, Term
from kb.rulenum import try_parse
from kb.search import query as qp
from kb.search.analysis import (
    ANALYZERS,
    bigrams_ja,
    clean_query,
    detect_lang,
    fold_accents,
    has_cjk,
    marker,
    normalize,
    terms,
)
from kb.search.highlight import highlight
from kb.search.indexer import (
    FORMAT,
    INDEX_NAME,
    KINDS,
    META_FILE,
    RULE_KINDS,
    example_prose,
    term_key,
)
from kb.search.notes import Note, note
from kb.search.notes import message as notes_message
from kb.search.postings import FILE as POSTINGS_FILE
from kb.search.postings import Coord, Evaluation, Postings
from kb.search.spelling import Speller
from kb.search.understand import WHEN_RULES, Concepts, asks_when, strip_frames
from kb.terms import TermIndex

MAX_LIMIT = 100
#: How many of the best-scored documents are reranked (coverage, glossary expansion).
RERANK = 40
#: A document having one of a question's many words keeps this share of its score (squared).
COVERAGE_FLOOR = 0.3
#: Weight of the rules a concept of the query names ("mana ability" -> 605, "dies" -> 700.4,
#: "絆魂" -> lifelink -> 702.15), for a fully specific concept (see kb.search.understand).
CONCEPT_BOOST = 2.5
#: Weight of proximity: a document gets up to this much more when every pair of successive
#: query words stands together in its text (within :data:`WINDOW` words; adjacent bigrams in
#: Japanese, i.e. a shared three-character run).
PROXIMITY = 0.5
WINDOW = 3
#: Weight of the rules on when players may act, for a question asking when one may act.
WHEN_BOOST = 1.8
#: Weight of a rule defining a concept when the question names nothing else ("what is scry").
DEFINITION_ASKED = 1.5
#: Weight of a text in the question's own language (French or Japanese) against the others.
SAME_LANG = 1.5
#: A search from a locale without a language filter (``prefer_lang``) puts that language's best
#: text this much above the best text of the others, its other texts in proportion: a Japanese
#: reader wants the Japanese quotes first. Raw scores of two languages are not comparable (a
#: word in nearly every French quote weighs little there), so the preference is relative.
PREFER_LEAD = 1.15
#: At most this much: a text matching a query far worse than the others stays below them.
PREFER_MAX = 60.0
#: Executable examples weigh this much less than their build-time prior unless the query asks
#: for an example: they illustrate rules and should not crowd the rules out of the first page.
EXAMPLE_DEMOTION = 0.2
#: ... and this much more when it does (rules' own "Example:" lines also have the word).
EXAMPLE_WANTED = 3.0
#: Words that make a query about examples ("example priority", "exemple pile", "優先権 例題").
EXAMPLE_WORDS = frozenset(
    {"example", "examples", "exemple", "exemples", "scenario", "scénario", "scenarios"}
)
EXAMPLE_WORDS_JA = ("例題", "実例", "具体例", "サンプル")
#: Words players use for the rules' own: "get priority" is "receive priority" in the rules.
EN_SYNONYMS = {"get": "receive", "gets": "receives", "got": "received", "getting": "receiving"}
#: A query with one of these is a question, not a glossary lookup: the entry is not pinned
#: ("what is priority" asks for a definition, so "what" and "is" are not among them).
QUESTION_WORDS = frozenset(
    {
        *("when", "where", "who", "why", "how", "does", "do", "did", "can", "could", "should"),
        *("would", "will", "quand", "comment", "pourquoi", "qui", "puis-je", "peut", "peux"),
        *("dois", "doit"),
    }
)
_RAW_WORD = re.compile(r"[^\W\d_]+(?:[-'’][^\W\d_]+)*")
_NUMBER_TOKEN = re.compile(
    r"^(?:r|rule|règle|regle)?\d{1,3}(?:\.\d{1,3}[a-z]?)?\.?$", re.IGNORECASE
)
# "rule 117.3b", "117.3 b": spellings kb.rulenum.parse reads as one number.
_NUMBER_QUERY = re.compile(
    r"^\s*(?:rules?|r[eè]gles?|r)?\s*\.?\s*\d{1,3}(?:\.\s*\d{0,3})?\s*[a-z]?\.?\s*$", re.IGNORECASE
)


class SearchError(ValueError):
    """A request the caller must refuse (HTTP 400): an unknown language or edition.

    ``str(error)`` is the English text; :attr:`note` the same as a :class:`Note` to translate.
    """

    def __init__(self, refusal: Note) -> None:
        super().__init__(refusal.text)
        self.note = refusal


@dataclass(slots=True)
class Hit:
    """One result: a rule (with its editions), a glossary entry, commentary, MTR item or example."""

    kind: str
    number: str | None
    lang: str
    edition: str | None
    editions: list[str]
    canonical: str | None
    title: str
    snippet: str
    score: float
    cross_language: bool = False
    key: str = ""

    def to_json(self) -> dict[str, Any]:
        """The documented JSON shape of a hit."""
        return {
            "kind": self.kind,
            "number": self.number,
            "key": self.key,
            "lang": self.lang,
            "edition": self.edition,
            "editions": self.editions,
            "canonical": self.canonical,
            "title": self.title,
            "snippet": self.snippet,
            "score": round(self.score, 4),
            "cross_language": self.cross_language,
        }


@dataclass(slots=True)
class SearchResult:
    """A page of results, with the total number of (grouped) results and what to tell the reader:
    :attr:`notes` (codes and values, to render in any language) and :attr:`message` (their
    English text, for the CLI and older JSON readers)."""

    query: str
    lang: str | None
    total: int = 0
    hits: list[Hit] = field(default_factory=list)
    page: int = 1
    pages: int = 0
    suggestion: str | None = None
    message: str = ""
    notes: list[Note] = field(default_factory=list)

    def tell(self, *notes: Note) -> None:
        """Set the notes and the English message made of them."""
        self.notes = list(notes)
        self.message = notes_message(self.notes)

    def to_json(self) -> dict[str, Any]:
        """``{"query", "lang", "total", "suggestion", "hits", "page", "pages", "message",
        "notes"}``, each note ``{"code", "params", "text"}`` with its English text."""
        return {
            "query": self.query,
            "lang": self.lang,
            "total": self.total,
            "suggestion": self.suggestion,
            "hits": [h.to_json() for h in self.hits],
            "page": self.page,
            "pages": self.pages,
            "message": self.message,
            "notes": [n.to_json() for n in self.notes],
        }


@dataclass(slots=True)
class _Compiled:
    """A query compiled for the index, and what the result page needs to know about it."""

    query: wq.Query | None
    marks: dict[str, set[str]] = field(default_factory=dict)  # analyser name -> terms
    corrections: dict[str, str] = field(default_factory=dict)
    known: set[str] = field(default_factory=set)  # words one language of the scope has as typed
    unknown: list[str] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    src: str | None = None
    glossary: list[int] = field(default_factory=list)  # docnums pinned first
    boosts: dict[str, float] = field(default_factory=dict)  # rule -> factor of its subtree
    # the question only names concepts ("how does scry work"): their defining rules first
    defined: tuple[str, ...] = ()
    # language -> (field, the query's terms in order), for proximity
    order: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    about_examples: bool = False  # the query asks for examples: they are not demoted
    markers: dict[str, Any] = field(default_factory=dict)  # language -> snippet analyser


class Searcher:
    """Searches one built index; open once per process, :meth:`close` when done."""

    def __init__(self, index_dir: Path, kb: KnowledgeBase) -> None:
        index_dir = Path(index_dir)
        meta_path = index_dir / META_FILE
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise FileNotFoundError(f"{meta_path}: no search index here (run `kb build`)") from exc
        if meta.get("format") != FORMAT:
            raise FileNotFoundError(
                f"{meta_path}: index format {meta.get('format')}, this version reads {FORMAT} "
                "(run `kb build --force`)"
            )
        self.kb = kb
        try:
            self._index = Postings(index_dir / POSTINGS_FILE)
        except (OSError, ValueError, EOFError, KeyError, TypeError) as exc:
            raise FileNotFoundError(
                f"{index_dir / POSTINGS_FILE}: missing or unreadable (run `kb build`)"
            ) from exc
        self._ix = whoosh_index.open_dir(str(index_dir), indexname=INDEX_NAME)
        self._searcher = self._ix.searcher()
        self._lock = threading.RLock()
        rows = meta["docs"]
        self._refs: list[str] = [r[0] for r in rows]
        self._kinds: list[str] = [r[1] for r in rows]
        self._langs: list[str] = [r[2] for r in rows]
        self._groups: list[str] = [r[3] for r in rows]
        self._doc_editions: list[list[str]] = [r[4] for r in rows]
        self._current: list[bool] = [r[5] for r in rows]
        self._stop: int = meta["current"]
        # Document sets by language and of examples, for preferences and demotions.
        self._lang_docs: dict[str, frozenset[int]] = {
            code: frozenset(d for d, x in enumerate(self._langs) if x == code) for code in LANGS
        }
        self._example_docs = frozenset(d for d, k in enumerate(self._kinds) if k == "example")
        if (
            self._searcher.doc_count_all() != len(rows)
            or not all(self._current[: self._stop])
            or self._index.stop != self._stop
        ):
            raise FileNotFoundError(f"{meta_path}: does not describe the index next to it")
        self._group_editions: dict[str, set[str]] = {}
        for group, eds in zip(self._groups, self._doc_editions, strict=True):
            self._group_editions.setdefault(group, set()).update(eds)
        self._filters: dict[tuple[Any, ...], set[int] | None] = {}
        # The glossary's names were analysed by the build (kb.search.indexer.glossary_meta).
        self._glossary: dict[tuple[str, str], list[int]] = {}
        for code, key, doc in meta["glossary_names"]:
            self._glossary.setdefault((code, key), []).append(doc)
        self._concepts = Concepts(meta.get("concepts", []), self._groups, self._stop)
        self._definitions = frozenset(meta.get("definitions", []))
        self._titles: dict[tuple[str, str], str] = {}
        self._reader = self._searcher.reader()
        self._speller = Speller(self._reader)
        self._cache: OrderedDict[tuple[Any, ...], _Compiled] = OrderedDict()
        self._term_names = _TermNames(kb)

    # ---- public API ----------------------------------------------------------------------
    def close(self) -> None:
        """Release the index files."""
        self._searcher.close()
        self._ix.close()

    def __enter__(self) -> Searcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def search(
        self,
        query: str,
        lang: str | None = None,
        edition: str | None = None,
        kind: str | None = None,
        limit: int = 10,
        page: int = 1,
        prefer_lang: str | None = None,
    ) -> SearchResult:
        """Search; raises :class:`SearchError` only for an unknown language or edition.

        ``prefer_lang`` (the reader's locale) ranks that language's texts first when ``lang``
        does not filter: the other languages' hits follow, marked ``cross_language``.
        """
        if lang is not None and lang not in LANGS:
            raise SearchError(note("unknown_language", lang=lang, langs=list(LANGS)))
        if prefer_lang is not None and prefer_lang not in LANGS:
            raise SearchError(note("unknown_language", lang=prefer_lang, langs=list(LANGS)))
        if lang is not None:
            prefer_lang = None
        ed = self._edition(lang, edition)
        limit = max(1, min(int(limit or 10), MAX_LIMIT))
        page = max(1, int(page or 1))
        text = clean_query(query or "")
        result = SearchResult(query=query or "", lang=lang, page=page)
        if kind is not None and kind not in (*KINDS, "rules"):
            result.tell(note("unknown_kind", kind=kind, kinds=list(KINDS)))
            return result
        if not text.strip():
            result.tell(note("empty_query"))
            return result
        if _NUMBER_QUERY.match(text) and kind in (None, *RULE_KINDS, "rules"):
            number = try_parse(text[: qp.MAX_QUERY])
            if number is not None:
                return self._number_search(str(number), lang, ed, limit, page, result)
        with self._lock:
            return self._text_search(text, lang, ed, kind, limit, page, result, prefer_lang)

    def suggest(self, prefix: str, lang: str, limit: int = 8) -> list[str]:
        """Completions of the last word of ``prefix`` (glossary terms first), for OpenSearch."""
        if lang not in LANGS:
            raise SearchError(note("unknown_language", lang=lang, langs=list(LANGS)))
        text = clean_query(prefix or "")[: qp.MAX_QUERY]
        if not text.strip():
            return []
        out: list[str] = []
        low = text.strip().lower()
        glossary = self.kb.glossary_edition(lang)
        entries = self.kb.glossary.get(glossary.id, {}).values() if glossary else ()
        out.extend(sorted(e.term for e in entries if e.term.lower().startswith(low)))
        head, _, last = text.rpartition(" ")
        if len(last) >= 2:
            field_name = "body_ja" if lang == "ja" else f"plain_{lang}"
            key = last.lower() if lang != "fr" else fold_accents(last.lower())
            with self._lock:
                words = self._speller.completions(field_name, key, limit)
            out.extend(f"{head} {w}".strip() for w in words)
        return list(dict.fromkeys(out))[:limit]

    def clear_caches(self) -> None:
        """Forget compiled queries and posting sets (benchmarks time queries from cold)."""
        with self._lock:
            self._cache.clear()

    # ---- editions and filters -------------------------------------------------------------
    def _edition(self, lang: str | None, spec: str | None) -> Edition | None:
        """The edition a search is limited to: an id, or a date or version in ``lang`` (any
        language when None); :class:`SearchError` names the known ones otherwise."""
        if not spec or not spec.strip():
            return None
        for code in (lang,) if lang else LANGS:
            ed = self.kb.resolve_edition(spec, code)
            if ed is not None and ed.lang == code:
                return ed
        if lang:
            known = [e.id for e in self.kb.editions_of(lang)]
            raise SearchError(
                note("unknown_edition_in_lang", lang=lang, edition=spec.strip(), known=known)
            )
        known = sorted(self.kb.editions)
        raise SearchError(note("unknown_edition", edition=spec.strip(), known=known))

    def _allowed(self, ed: Edition | None, kind: str | None) -> set[int] | None:
        """Documents a search may return, or None for "every current document".

        The language needs no filter: each language has its own fields.
        """
        if ed is None and kind is None:
            return None
        key = (ed.id if ed else None, kind)
        if key in self._filters:
            return self._filters[key]
        kinds = RULE_KINDS if kind in ("rule", "rules") else (kind,) if kind else None
        out = set()
        for doc in range(len(self._refs) if ed else self._stop):
            if kinds and self._kinds[doc] not in kinds:
                continue
            if ed is not None and ed.id not in self._doc_editions[doc]:
                continue
            out.add(doc)
        self._filters[key] = out
        return out

    # ---- rule numbers ----------------------------------------------------------------------
    def _number_search(
        self,
        number: str,
        lang: str | None,
        ed: Edition | None,
        limit: int,
        page: int,
        result: SearchResult,
    ) -> SearchResult:
        kb = self.kb
        rule: Rule | None = None
        if ed is not None:
            rule = kb.rule(ed.id, number)
        elif lang is not None:
            rule = kb.find(lang, number)
        else:
            for code in LANGS:
                rule = kb.current(number, code) if number in kb.concordance else None
                rule = rule or kb.find(code, number)
                if rule is not None:
                    break
        if rule is None:
            if ed is not None:
                notes = [note("no_rule_in_edition", number=number, edition=ed.id)]
            elif lang is not None:
                notes = [note("no_rule_in_lang", number=number, lang=lang)]
            else:
                notes = [note("no_rule", number=number)]
            near = kb.nearest(lang or "en", number, ed.id if ed else None)
            if near:
                notes.append(note("nearby", numbers=list(near)))
                result.suggestion = near[0]
            result.tell(*notes)
            return result
        nodes = kb.subtree(rule)
        if rule.canonical and rule.canonical != rule.number:
            now = kb.current(rule.canonical, "en")
            title = (now.title or _ancestor_title(kb, now)) if now else ""
            where = {"number": rule.number, "edition": rule.edition, "canonical": rule.canonical}
            if title:
                result.tell(note("renumbered", **where, title=title))
            else:
                result.tell(note("renumbered_untitled", **where))
        elif rule.canonical is None and ed is not None:
            result.tell(note("deleted", number=rule.number, edition=rule.edition))
        result.total = len(nodes)
        result.pages = math.ceil(len(nodes) / limit)
        scope = (lang,) if lang else LANGS
        for node in nodes[(page - 1) * limit : page * limit]:
            hit = self._rule_hit(node, scope, 1.0, "")
            hit.snippet = highlight(node.text or hit.title, set(), [])
            result.hits.append(hit)
        return result

    # ---- full text ----------------------------------------------------------------------------
    def _text_search(
        self,
        text: str,
        lang: str | None,
        ed: Edition | None,
        kind: str | None,
        limit: int,
        page: int,
        result: SearchResult,
        prefer: str | None = None,
    ) -> SearchResult:
        scope = (lang,) if lang else LANGS
        compiled = self._compile(text, scope, lang)
        notes = list(compiled.notes)
        if compiled.query is None:
            result.tell(*notes, note("nothing_to_search"))
            return result
        allowed = self._allowed(ed, kind)
        ev = Evaluation()
        scores = self._index.evaluate(compiled.query, ed is not None, ev)
        if allowed is not None:
            scores = {d: w for d, w in scores.items() if d in allowed}
        if compiled.boosts and ed is None:
            scores = self._boost(scores, compiled.boosts)
            if compiled.defined:
                defining = self._definitions
                for root in compiled.defined:
                    for doc in self._concepts.subtree(root) & defining:
                        if doc in scores:
                            scores[doc] *= DEFINITION_ASKED
        if compiled.src in ("fr", "ja") and lang is None and prefer is None:
            # A French or Japanese question is best answered in its language where a text of
            # that language matches about as well (the French and Japanese texts are partial).
            langs = self._langs
            own = compiled.src
            scores = {d: w * SAME_LANG if langs[d] == own else w for d, w in scores.items()}
        wanted = compiled.about_examples or kind == "example"
        scores = self._reweigh(scores, prefer, wanted)
        fetch = page * limit * (1 if lang else 2) + 10
        scored = self._rank(scores, max(fetch, RERANK), compiled, ev, demote_examples=not wanted)
        if prefer:
            scored = self._prefer(scored, prefer)
        scored = scored[:fetch]
        top = scored[0][0] if scored else 1.0
        stop = self._stop if ed is None else len(self._refs)
        pinned = [
            d for d in compiled.glossary if (d in allowed if allowed is not None else d < stop)
        ]
        ordered = [(top * 2 + 1.0, d) for d in pinned if not prefer or self._langs[d] == prefer]
        foreign = [d for d in pinned if prefer and self._langs[d] != prefer]
        if foreign:
            # A glossary entry of another language leads that language's hits, not the page.
            lead = max((s for s, d in scored if self._langs[d] != prefer), default=top)
            scored = sorted([(lead * 1.01, d) for d in foreign] + scored, key=lambda x: -x[0])
        ordered += scored
        groups: dict[str, tuple[float, int]] = {}
        for score, doc in ordered:
            group = self._groups[doc]
            if group not in groups:
                groups[group] = (score, doc)
        if len(scored) < fetch:
            total = len(groups)
        elif lang is not None and ed is None:
            # One language, current documents: each rule or term has one, so documents = groups.
            total = len(scores) + sum(1 for d in pinned if d not in scores)
        else:
            groups_of = self._groups
            total = len({groups_of[d] for d in scores} | groups.keys())
        result.total = total
        result.pages = math.ceil(total / limit)
        picked = list(groups.values())[(page - 1) * limit : page * limit]
        for score, doc in picked:
            hit = self._hit(doc, score, compiled, scope, ed)
            if prefer:
                hit.cross_language = hit.lang != prefer
            result.hits.append(hit)
        # A corrected word matched nothing as typed: the results are only as good as the guess.
        # A word one of the languages knows is no typo ("priority" is not the French "priorite").
        corrections = {k: v for k, v in compiled.corrections.items() if k not in compiled.known}
        if corrections:
            suggestion = text
            for wrong, right in corrections.items():
                suggestion = re.sub(rf"(?<!\w){re.escape(wrong)}(?!\w)", right, suggestion)
            if suggestion != text:
                result.suggestion = suggestion
        if not result.hits:
            if result.suggestion:
                notes += [note("no_results"), note("did_you_mean", suggestion=result.suggestion)]
            elif page > 1 and total:
                notes.append(note("no_results_on_page", page=page, pages=result.pages))
            else:
                notes.append(note("no_results"))
        result.tell(*notes)
        return result

    def _boost(self, scores: dict[int, float], boosts: dict[str, float]) -> dict[int, float]:
        """A copy of ``scores`` with the subtrees of the query's concepts' rules raised."""
        out = dict(scores)
        factors: dict[int, float] = {}
        for root, factor in boosts.items():
            for doc in self._concepts.subtree(root):
                if doc in out and factors.get(doc, 1.0) < factor:
                    factors[doc] = factor
        for doc, factor in factors.items():
            out[doc] *= factor
        return out

    def _reweigh(
        self, scores: dict[int, float], prefer: str | None, examples_wanted: bool
    ) -> dict[int, float]:
        """Scores with examples raised (when asked for) and the preferred language raised to the
        level of the best document, so that reranking sees them (a copy if anything changed)."""
        factors: list[tuple[frozenset[int], float]] = []
        if prefer and scores:
            langs = self._langs
            best, top = max(scores.items(), key=_second)
            if langs[best] != prefer:
                mine = self._lang_docs[prefer]
                if len(mine) < len(scores):
                    own = max((scores[d] for d in mine if d in scores), default=0.0)
                else:
                    own = max((w for d, w in scores.items() if langs[d] == prefer), default=0.0)
                if own > 0:
                    factors.append((mine, min(top / own, PREFER_MAX)))
        if examples_wanted:
            factors.append((self._example_docs, EXAMPLE_WANTED))
        if not factors:
            return scores
        out = dict(scores)
        for docs, factor in factors:
            if len(docs) < len(out):
                for d in docs:
                    if d in out:
                        out[d] *= factor
            else:
                for d in out:
                    if d in docs:
                        out[d] *= factor
        return out

    def _prefer(self, scored: list[tuple[float, int]], prefer: str) -> list[tuple[float, int]]:
        """The reranked list with the preferred language's best text :data:`PREFER_LEAD` above
        the best other one (its other texts scaled alike)."""
        langs = self._langs
        own = max((s for s, d in scored if langs[d] == prefer), default=0.0)
        other = max((s for s, d in scored if langs[d] != prefer), default=0.0)
        if own <= 0 or own >= other * PREFER_LEAD:
            return scored
        factor = min(other * PREFER_LEAD / own, PREFER_MAX)
        out = [(s * factor if langs[d] == prefer else s, d) for s, d in scored]
        out.sort(key=lambda x: (-x[0], x[1]))
        return out

    def _rank(
        self,
        scores: dict[int, float],
        depth: int,
        compiled: _Compiled,
        ev: Evaluation,
        demote_examples: bool = False,
    ) -> list[tuple[float, int]]:
        """The best ``depth`` documents, reranked: more of the query's words, and rules that
        the glossary names for a term of the query, count for more than raw term weights."""
        best = heapq.nlargest(depth, scores.items(), key=_second)
        groups = ev.groups
        order = compiled.order
        langs = self._langs
        seqs = self._index.seq
        out = []
        examples = self._example_docs if demote_examples else frozenset()
        for doc, score in best:
            if doc in examples:
                # Demoted here rather than before the cut: lowering needs no copy of the scores.
                score *= EXAMPLE_DEMOTION
            lang_order = order.get(langs[doc])
            if lang_order is not None and len(lang_order[1]) > 1:
                name, wanted = lang_order
                seq = seqs[name][doc] if name in seqs else None
                if seq:
                    score *= 1.0 + PROXIMITY * _proximity(
                        seq, wanted, 1 if name == "gram_ja" else WINDOW
                    )
            for parts in groups:
                hits = 0
                for part in parts:
                    if doc in part:
                        hits += 1
                if hits:
                    score *= (COVERAGE_FLOOR + (1 - COVERAGE_FLOOR) * hits / len(parts)) ** 2
            out.append((score, doc))
        out.sort(key=lambda x: (-x[0], x[1]))
        return out

    def _compile(self, text: str, scope: tuple[str, ...], lang: str | None) -> _Compiled:
        key = (text, scope)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        typed = qp.parse(text)
        out = _Compiled(None, notes=list(typed.notes))
        out.src = detect_lang(text) or self._term_names.language_of(text) or lang
        content = strip_frames(text, out.src)
        parsed = typed if content == text else qp.parse(content)
        if parsed.tree is None:
            parsed = typed
        if parsed.tree is not None:
            parts = []
            for code in scope:
                native = self._node(parsed.tree, code, out)
                extra = self._translations(content, code, out)
                if len(extra) > 1:
                    # Translated names are a question's words too: a text having more of them
                    # ranks higher, as with the words of a question typed in that language.
                    extra = [Coord(extra)]
                if native is not None and extra:
                    native = wq.Or([native, *extra])
                elif extra:
                    native = extra[0]
                if native is not None:
                    parts.append(native)
            if parts:
                out.query = parts[0] if len(parts) == 1 else wq.Or(parts)
            self._pin_glossary(typed, scope, out)
            # Concepts are read in the repaired question: "trampel" names trample.
            repaired = content
            for wrong, right in out.corrections.items():
                repaired = re.sub(rf"(?<!\w){re.escape(wrong)}(?!\w)", right, repaired)
            out.boosts, out.defined = self._concept_boosts(repaired, out.src)
            if asks_when(text):
                for rule in WHEN_RULES:
                    out.boosts[rule] = max(out.boosts.get(rule, 1.0), WHEN_BOOST)
            out.about_examples = _about_examples(text)
            for code in scope:
                if code == "ja":
                    seq = [g for g, _, _ in bigrams_ja(text)]
                    out.order[code] = ("gram_ja", seq)
                else:
                    out.order[code] = (f"body_{code}", terms(text, code))
        self._cache[key] = out
        if len(self._cache) > 2048:
            self._cache.popitem(last=False)
        return out

    def _node(self, node: qp.Node, code: str, out: _Compiled) -> wq.Query | None:
        if isinstance(node, qp.Word):
            return self._word(node, code, out)
        if isinstance(node, qp.Phrase):
            return self._phrase(node.text, code, out)
        if isinstance(node, qp.AnyOf):
            items = [q for q in (self._node(n, code, out) for n in node.items) if q is not None]
            return wq.Or(items) if len(items) > 1 else (items[0] if items else None)
        positive = [q for q in (self._node(n, code, out) for n in node.positive) if q is not None]
        required = [q for q in (self._node(n, code, out) for n in node.required) if q is not None]
        negative = [q for q in (self._node(n, code, out) for n in node.negative) if q is not None]
        if len(required) < len(node.required):
            return None  # a required word that cannot match in this language: nothing can
        base: wq.Query | None
        if required:
            base = wq.And(required) if len(required) > 1 else required[0]
            if positive:
                base = wq.AndMaybe(base, Coord(positive) if len(positive) > 1 else positive[0])
        elif positive:
            base = Coord(positive) if len(positive) > 1 else positive[0]
        else:
            return None
        if negative:
            base = wq.AndNot(base, wq.Or(negative))
        return base

    def _mark(self, out: _Compiled, analyzer: str, items: list[str]) -> None:
        out.marks.setdefault(analyzer, set()).update(items)

    def _word(self, word: qp.Word, code: str, out: _Compiled) -> wq.Query | None:
        text = word.text
        if code != "ja" and has_cjk(text):
            return None
        if word.prefix:
            return self._prefix(text, code, out)
        clauses: list[wq.Query] = []
        if _NUMBER_TOKEN.match(text):
            number = try_parse(text)
            if number is not None:
                # A rule's own number is the first word of its title (see the indexer).
                clauses.append(wq.Term(f"title_{code}", str(number), boost=4.0))
        if code == "ja":
            toks = terms(text, "ja")
            # A Japanese question is one "word" of several morphemes: alternatives, ranked by
            # how many of them a document has, like the words of an English question.
            parts = [self._ja_token(tok, out) for tok in toks]
            if len(parts) > 1:
                clauses.append(Coord(parts))
            else:
                clauses.extend(parts)
            if not clauses:
                return None
        else:
            toks = terms(text, code)
            if not toks and code == "en" and text.lower() in EN_SYNONYMS:
                toks = terms(EN_SYNONYMS[text.lower()], code)
            if not toks:
                return wq.Or(clauses) if clauses else None
            self._mark(out, code, toks)
            if len(toks) > 1:
                clauses.append(wq.Phrase(f"body_{code}", toks))
                clauses.append(wq.Phrase(f"title_{code}", toks))
            else:
                tok = toks[0]
                clauses.append(wq.Term(f"body_{code}", tok))
                clauses.append(wq.Term(f"title_{code}", tok))
                if (
                    tok.isalpha()
                    and out.src in (None, code)
                    and self._index.frequency(f"body_{code}", tok) == 0
                    and self._index.frequency(f"title_{code}", tok) == 0
                ):
                    clauses.extend(self._fuzzy(text, code, out))
                else:
                    out.known.add(text)
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else wq.Or(clauses)

    def _fuzzy(self, text: str, code: str, out: _Compiled) -> list[wq.Query]:
        spelled = terms(text, f"{code}_plain")
        if len(spelled) != 1 or len(spelled[0]) < 4:
            return []
        fixes = self._speller.corrections(f"plain_{code}", spelled[0])
        if not fixes:
            if text not in out.unknown:
                out.unknown.append(text)
            return []
        best = fixes[0]
        if text not in out.corrections:
            out.corrections[text] = best
        clauses: list[wq.Query] = []
        for fix in fixes[:3]:
            for tok in terms(fix, code):
                self._mark(out, code, [tok])
                clauses.append(wq.Term(f"body_{code}", tok, boost=0.8))
                clauses.append(wq.Term(f"title_{code}", tok, boost=0.8))
        return clauses

    def _prefix(self, text: str, code: str, out: _Compiled) -> wq.Query | None:
        key = normalize(text).lower()
        if code == "fr":
            key = fold_accents(key)
        field_name = "body_ja" if code == "ja" else f"plain_{code}"
        words = self._speller.completions(field_name, key, 32)
        stems: list[str] = []
        for w in words:
            stems.extend(terms(w, code) if code != "ja" else [w])
        stems = list(dict.fromkeys(stems))
        if not stems:
            return None
        self._mark(out, code, stems)
        body = "body_ja" if code == "ja" else f"body_{code}"
        return wq.Or([wq.Term(body, s) for s in stems])

    def _ja_token(self, tok: str, out: _Compiled) -> wq.Query:
        self._mark(out, "ja", [tok])
        clauses: list[wq.Query] = [wq.Term("body_ja", tok), wq.Term("title_ja", tok)]
        grams = [g for g, _, _ in bigrams_ja(tok)]
        if len(grams) > 1:
            clauses.append(wq.Phrase("gram_ja", grams))
            self._mark(out, "ja_gram", grams)
        elif grams and len(grams[0]) == 2:
            clauses.append(wq.Term("gram_ja", grams[0]))
            self._mark(out, "ja_gram", grams)
        return wq.Or(clauses)

    def _phrase(self, text: str, code: str, out: _Compiled) -> wq.Query | None:
        if code != "ja" and has_cjk(text):
            return None
        if code == "ja":
            toks = terms(text, "ja")
            grams = [g for g, _, _ in bigrams_ja(text)]
            clauses: list[wq.Query] = []
            if len(toks) > 1:
                clauses.append(wq.Phrase("body_ja", toks))
            elif toks:
                clauses.append(wq.Term("body_ja", toks[0]))
            if len(grams) > 1:
                clauses.append(wq.Phrase("gram_ja", grams))
            self._mark(out, "ja", toks)
            self._mark(out, "ja_gram", grams)
            return wq.Or(clauses) if clauses else None
        toks = terms(text, code)
        if not toks:
            return None
        self._mark(out, code, toks)
        if len(toks) == 1:
            return wq.Or([wq.Term(f"body_{code}", toks[0]), wq.Term(f"title_{code}", toks[0])])
        return wq.Or([wq.Phrase(f"body_{code}", toks), wq.Phrase(f"title_{code}", toks)])

    def _translations(self, text: str, code: str, out: _Compiled) -> list[wq.Query]:
        names: list[str] = []
        for src in LANGS:
            # A question in a known language is translated from that language only: an English
            # "creature" read as a French name would count the word twice.
            if src != code and out.src in (None, src):
                names.extend(self._term_names.translate(text, src, code))
        clauses = []
        for name in dict.fromkeys(names):
            clause = self._phrase(name, code, out)
            if clause is not None:
                clauses.append(clause)
        return clauses

    def _concept_boosts(
        self, text: str, src: str | None
    ) -> tuple[dict[str, float], tuple[str, ...]]:
        """Rule -> factor for the concepts ``text`` names (English words directly, French and
        Japanese through the term base's English names), and the rules of those concepts when
        the text names nothing else."""
        found: list[tuple[tuple[str, ...], int]] = []
        covered = False
        if src in (None, "en"):
            words = terms(text, "en")
            named = self._concepts.find(words)
            found.extend((rules, df) for _, rules, df in named)
            covered = bool(named) and sum(len(n) for n, _, _ in named) == len(words)
        for other in ("fr", "ja"):
            if src in (None, other):
                for name in self._term_names.translate(text, other, "en"):
                    row = self._concepts.named(terms(name, "en"))
                    if row is not None:
                        found.append(row)
        boosts: dict[str, float] = {}
        for rules, df in found:
            factor = 1.0 + (CONCEPT_BOOST - 1.0) * Concepts.weight(df)
            if factor <= 1.01:
                continue
            for rule in rules:
                if boosts.get(rule, 1.0) < factor:
                    boosts[rule] = factor
        return boosts, tuple(boosts) if covered else ()

    def _pin_glossary(self, parsed: qp.Parsed, scope: tuple[str, ...], out: _Compiled) -> None:
        """A query that is a glossary term (or its translation) shows that entry first."""
        if parsed.tree is None or (
            not qp.is_simple(parsed.tree) and not isinstance(parsed.tree, qp.Phrase)
        ):
            return
        raw = " ".join(w.text for w in qp.words(parsed.tree)).lower()
        if any(w in QUESTION_WORDS for w in _RAW_WORD.findall(raw)):
            return
        phrase = " ".join(w.text for w in qp.words(parsed.tree))
        fixed = " ".join(out.corrections.get(w.text, w.text) for w in qp.words(parsed.tree))
        for code in scope:
            candidates = [phrase, fixed] if fixed != phrase else [phrase]
            for src in LANGS:
                if src != code:
                    candidates.extend(self._term_names.translate(phrase, src, code, whole=True))
            for cand in candidates:
                key = term_key(cand, code)
                if not key:  # only stop words ("the of and"): no entry is named by nothing
                    continue
                for doc in self._glossary.get((code, key), []):
                    if doc not in out.glossary:
                        out.glossary.append(doc)

    # ---- hits --------------------------------------------------------------------------------
    def _hit(
        self,
        doc: int,
        score: float,
        compiled: _Compiled,
        scope: tuple[str, ...],
        ed: Edition | None,
    ) -> Hit:
        ref = self._refs[doc]
        kind, _, rest = ref.partition("|")
        lang = self._langs[doc]
        marks = compiled.marks
        if lang == "ja":
            wanted = marks.get("ja", set()) | marks.get("ja_gram", set())
            analyzers = [ANALYZERS["ja"], ANALYZERS["ja_gram"]]
        else:
            wanted = marks.get(lang, set())
            mark = compiled.markers.get(lang)
            if mark is None:
                mark = compiled.markers[lang] = marker(lang, wanted)
            analyzers = [mark]
        cross = compiled.src is not None and compiled.src != lang
        if kind == "r":
            ed_id, number = rest.split("|", 1)
            if ed is not None:
                ed_id = ed.id
            rule = self.kb.rules[ed_id][number]
            hit = self._rule_hit(rule, scope, score, "")
            body = "\n".join([rule.text, *rule.examples]).strip() or hit.title
            hit.snippet = highlight(body, wanted, analyzers)
        elif kind == "g":
            ed_id, key = rest.split("|", 1)
            if ed is not None and key in self.kb.glossary.get(ed.id, {}):
                ed_id = ed.id
            entry = self.kb.glossary[ed_id][key]
            hit = Hit(
                "glossary",
                None,
                lang,
                ed_id,
                self._editions(self._groups[doc], scope),
                None,
                entry.term,
                highlight(entry.definition, wanted, analyzers),
                score,
                key=key,
            )
        else:
            hit = self._other_hit(kind, rest, lang, score, wanted, analyzers)
        hit.cross_language = cross
        return hit

    def _other_hit(
        self, kind: str, ident: str, lang: str, score: float, wanted: set[str], analyzers: list[Any]
    ) -> Hit:
        if kind == "c":
            com = next(c for c in self.kb.commentary if c.id == ident)
            # A paragraph without a heading is named by its first words, not by a file name.
            title = com.heading or ", ".join(com.about_rules) or _opening(com.text)
            return Hit(
                "commentary",
                None,
                lang,
                None,
                [],
                com.about_rules[0] if com.about_rules else None,
                title,
                highlight(com.text, wanted, analyzers),
                score,
                key=ident,
            )
        if kind == "t":
            item = next(t for t in self.kb.tournament if t.id == ident)
            return Hit(
                "tournament",
                item.section,
                lang,
                None,
                [],
                None,
                f"MTR {item.section}",
                highlight(item.text, wanted, analyzers),
                score,
                key=ident,
            )
        ex = next(x for x in self.kb.examples if x.id == ident)
        return Hit(
            "example",
            None,
            lang,
            None,
            [],
            ex.rules[0] if ex.rules else None,
            ex.title,
            highlight(example_prose(ex.markdown) or ex.title, wanted, analyzers),
            score,
            key=ident,
        )

    def _rule_hit(self, rule: Rule, scope: tuple[str, ...], score: float, snippet: str) -> Hit:
        group = f"r:{rule.canonical}" if rule.canonical else None
        editions = self._editions(group, scope) if group else [rule.edition]
        return Hit(
            rule.kind,
            rule.number,
            rule.lang,
            rule.edition,
            editions or [rule.edition],
            rule.canonical,
            rule.title or self._inherited_title(rule),
            snippet,
            score,
            key=rule.number,
        )

    def _inherited_title(self, rule: Rule) -> str:
        """The title a subrule shows (its nearest titled ancestor's), remembered: it is a fact
        of the knowledge base, the same for every query."""
        key = (rule.edition, rule.number)
        title = self._titles.get(key)
        if title is None:
            title = _ancestor_title(self.kb, rule)
            if len(self._titles) < 100_000:
                self._titles[key] = title
        return title

    def _editions(self, group: str, scope: tuple[str, ...]) -> list[str]:
        eds = self._group_editions.get(group, set())
        known = self.kb.editions
        return sorted(
            (e for e in eds if e in known and known[e].lang in scope),
            key=lambda e: (LANGS.index(known[e].lang), known[e].date or "", e),
        )


def _ancestor_title(kb: KnowledgeBase, rule: Rule) -> str:
    """The title of the nearest titled rule above (a subrule shows its rule's title)."""
    number = try_parse(rule.number)
    for anc in number.ancestors() if number else []:
        node = kb.rule(rule.edition, str(anc))
        if node is not None and node.title:
            return node.title
    return ""


class _TermNames:
    """The term base for cross-language expansion: :class:`kb.terms.TermIndex` finds the
    concepts a query names; a whole-query match compares the query with a name as analysed."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.terms = kb.terms
        self._index = TermIndex(kb.terms)

    def _whole(self, text: str, src: str) -> list[Term]:
        """The concepts one of whose ``src`` names is the whole of ``text``."""
        key = _analysed(text, src)
        return [
            term
            for term in self._index.find(text, src)
            if any(_analysed(name, src) == key for name in term.names(src))
        ]

    def translate(self, text: str, src: str, dst: str, whole: bool = False) -> list[str]:
        """Names in ``dst`` of the concepts named in ``text`` in ``src`` (``whole``: the text
        is one name, and each concept gives its first two names)."""
        if (src == "ja") != has_cjk(text):
            return []
        if not whole:
            return self._index.translate(text, src, dst)
        names = [name for term in self._whole(text, src) for name in term.names(dst)[:2]]
        return list(dict.fromkeys(names))

    def language_of(self, text: str) -> str | None:
        """The one language whose term names occur in ``text``, if exactly one does."""
        cjk = has_cjk(text)
        found = [code for code in LANGS if (code == "ja") == cjk and self._index.find(text, code)]
        return found[0] if len(found) == 1 else None


def _analysed(text: str, lang: str) -> tuple[str, ...]:
    """A name or a query as the index sees it: stems in English and French, NFKC in Japanese."""
    return (normalize(text),) if lang == "ja" else tuple(terms(text, lang))


def _opening(text: str, limit: int = 40) -> str:
    """The first words of ``text``, at most ``limit`` characters (an ellipsis if cut)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _about_examples(text: str) -> bool:
    """True if the query asks for executable examples rather than rules."""
    low = text.lower()
    return any(w in EXAMPLE_WORDS for w in _RAW_WORD.findall(low)) or any(
        w in text for w in EXAMPLE_WORDS_JA
    )


def _second(item: tuple[int, float]) -> float:
    return item[1]


def _under(number: str, roots: tuple[str, ...]) -> bool:
    """True if rule ``number`` is one of ``roots`` or below one ("605.3b" is below "605")."""
    for root in roots:
        if number.startswith(root) and (
            len(number) == len(root) or number[len(root)] == "." or number[len(root)].isalpha()
        ):
            return True
    return False


def _proximity(seq: tuple[str, ...], wanted: list[str], window: int) -> float:
    """Share of the successive pairs of ``wanted`` found within ``window`` words in ``seq``."""
    where: dict[str, list[int]] = {}
    keep = set(wanted)
    for i, t in enumerate(seq):
        if t in keep:
            where.setdefault(t, []).append(i)
    pairs = 0
    found = 0
    for a, b in pairwise(wanted):
        if a == b:
            continue
        pairs += 1
        pa = where.get(a)
        pb = where.get(b)
        if pa and pb and any(0 < j - i <= window for i in pa for j in pb):
            found += 1
    return found / pairs if pairs else 0.0
