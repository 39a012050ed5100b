"""The search front door: :class:`Searcher` opens one built index and answers searches, rule
numbers and completions, grouping and paging what :mod:`kb.search.compiler`,
:mod:`kb.search.ranking` and :mod:`kb.search.hits` make.

One :class:`Searcher` keeps one Whoosh searcher open for its lifetime (opening a reader costs far
more than a query) and answers from any thread under a lock. Filters are plain sets of document
numbers computed once from ``meta.json``; rule-number queries never touch the index.

Default edition: a search without an edition sees, for each rule (and glossary term) and language,
its newest version in that language. The French and Japanese texts are partial quotes, so a rule
quoted only in an older French edition is still found in French.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import sys
import threading
from operator import itemgetter
from pathlib import Path
from typing import Any

from whoosh import index as whoosh_index

from kb.base.limits import MAX_LIMIT
from kb.knowledge.lookup import ancestor_title, nearest_rules
from kb.knowledge.model import LANGS, Edition, KnowledgeBase, Rule
from kb.knowledge.printed import printed_rule
from kb.search import query as qp
from kb.search.analysis import clean_query, fold_accents
from kb.search.cards import CardSearch
from kb.search.compiled import Compiled
from kb.search.compiler import QueryCompiler
from kb.search.highlight import highlight
from kb.search.hits import EditionSets, HitMaker
from kb.search.indexer import FORMAT, INDEX_NAME, KINDS, META_FILE, RULE_KINDS
from kb.search.notes import note
from kb.search.postings import FILE as POSTINGS_FILE
from kb.search.postings import Evaluation, Postings
from kb.search.prepared import read as read_prepared
from kb.search.ranking import Ranker
from kb.search.results import SearchError, SearchResult
from kb.search.snippets import SnippetSpans
from kb.search.spelling import Speller
from kb.search.understand import Concepts
from kb.search.votes import citations, current_rule_docs, split_asks, withdrawn_docs
from kb.search.wording import corrected
from kb.search.written import as_written
from kb.text.rulenum import parse_number_query

__all__ = ["Searcher"]

# "rule 117.3b", "117.3 b": spellings kb.text.rulenum.parse reads as one number.
# Only a query with a digit can be a rule number or a range (kb.text.rulenum.parse_number_query reads
# every spelling the reference finder reads: "rule 117.3b", "CR 117.3a", "ルール117.3b", "117.3a-d").
_HAS_DIGIT = re.compile(r"[0-9０-９]")


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
        rows = meta.pop("docs")
        # Names shared by many documents are stored once (a server keeps these for its life).
        intern = sys.intern
        self._refs: list[str] = [r[0] for r in rows]
        self._kinds: list[str] = [intern(r[1]) for r in rows]
        self._langs: list[str] = [intern(r[2]) for r in rows]
        self._groups: list[str] = [intern(r[3]) for r in rows]
        self._editions = EditionSets(kb, [r[4] for r in rows])
        self._stop: int = meta["current"]
        if (
            self._searcher.doc_count_all() != len(rows)
            or not all(r[5] for r in rows[: self._stop])
            or self._index.stop != self._stop
        ):
            raise FileNotFoundError(f"{meta_path}: does not describe the index next to it")
        del rows
        # Current documents of the groups having several (for counting grouped results).
        siblings: dict[str, list[int]] = {}
        for doc in range(self._stop):
            siblings.setdefault(self._groups[doc], []).append(doc)
        self._siblings = {g: docs for g, docs in siblings.items() if len(docs) > 1}
        # A set, not a frozenset: keys & set walks the smaller of the two (a frozenset, always
        # itself; an archive shares tens of thousands).
        self._shared = {d for docs in self._siblings.values() for d in docs}
        self._filters: dict[tuple[Any, ...], set[int] | None] = {}
        # The glossary's names were analysed by the build (kb.search.indexer.glossary_meta).
        glossary: dict[tuple[str, str], list[int]] = {}
        for code, key, doc in meta["glossary_names"]:
            glossary.setdefault((code, key), []).append(doc)
        concepts = Concepts(meta.get("concepts", []), self._groups, self._stop)
        definitions = frozenset(meta.get("definitions", []))
        self._reader = self._searcher.reader()
        self._speller = Speller(self._reader)
        self._compiler = QueryCompiler(kb, self._speller, self._index, concepts, glossary)
        # The term base's phrases and the withdrawn documents, as the build stored them
        # (kb.search.prepared), else computed here. Withdrawn: glossary entries and rules no
        # longer in the rules, ranked low and marked (kb.search.ranking).
        prepared = read_prepared(
            index_dir, meta.get("content_hash") or "", len(self._refs), self._stop
        )
        if prepared is not None:
            self._index.know_phrases(prepared.phrases)
            self._withdrawn = prepared.withdrawn
        else:
            self._index.learn_phrases(self._compiler.name_phrases())
            self._withdrawn = withdrawn_docs(
                kb, self._refs, self._langs, self._stop, self._editions
            )
        english = current_rule_docs(self._groups, self._langs, self._stop)
        cites = citations(kb, self._groups, self._stop, english, "example")
        ask_cites = citations(kb, self._groups, self._stop, english, "ask")
        #: the questions players ask: documents that vote for rules, never hits
        self._asks = frozenset(d for d in range(self._stop) if self._kinds[d] == "ask")
        # The build puts them last among the current documents: their postings are then kept
        # apart, scored only when they vote (kb.search.postings.Postings.side).
        first = self._stop - len(self._asks)
        self._asks_apart = bool(self._asks) and min(self._asks) == first
        if self._asks_apart:
            self._index.side(first)
        self._ranker = Ranker(
            self._index,
            self._langs,
            self._kinds,
            concepts,
            definitions,
            self._withdrawn,
            cites,
            ask_cites,
        )
        spans = SnippetSpans(index_dir, self._index.sequence, self._stop)
        self._hits = HitMaker(kb, self._refs, self._langs, self._groups, self._editions, spans)
        #: The build's cards (kb.search.cards): names in questions, card and ruling hits.
        self.cards = CardSearch.of(kb)

    # ---- public API ----------------------------------------------------------------------
    def close(self) -> None:
        """Release the index files."""
        self._searcher.close()
        self._ix.close()
        self._index.close()

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
        boosts: dict[str, float] | None = None,
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
        if self.cards is not None and boosts is None and kind in (None, "card", "ruling"):
            kw = {"lang": lang, "edition": edition, "kind": kind, "limit": limit, "page": page}
            found = self.cards.search(
                self, clean_query(query or "").strip(), self.search, prefer_lang=prefer_lang, **kw
            )
            if found is not None:
                return found
        if kind is not None and kind not in (*KINDS, "rules"):
            result.tell(note("unknown_kind", kind=kind, kinds=list(KINDS)))
            return result
        if not text.strip():
            result.tell(note("empty_query"))
            return result
        if kind in (None, *RULE_KINDS, "rules") and _HAS_DIGIT.search(text):
            numbers = parse_number_query(text[: qp.MAX_QUERY])
            if numbers:
                return self._number_search(numbers, lang, ed, limit, page, result)
        with self._lock:
            try:
                args = (text, lang, ed, kind, limit, page, result, prefer_lang, boosts)
                return self._text_search(*args)
            finally:
                self._index.forget()

    def rule_list(
        self, query: str, numbers: list[str], lang: str | None, limit: int, page: int
    ) -> SearchResult:
        """The rules ``numbers`` as hits in that order (the rules a card named by the query
        uses: kb.search.cards), as a range of rule numbers is answered."""
        result = SearchResult(query=query, lang=lang, page=page)
        return self._range_search(numbers, lang, None, limit, page, result)

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
            self._compiler.clear()

    def _compile(self, text: str, scope: tuple[str, ...], lang: str | None) -> Compiled:
        """The query compiled for ``scope`` (benchmarks time this step alone)."""
        return self._compiler.compile(text, scope, lang)

    def _concept_boosts(
        self, text: str, src: str | None
    ) -> tuple[dict[str, float], tuple[str, ...]]:
        """The concept boosts of ``text`` (see :meth:`QueryCompiler.concept_boosts`)."""
        return self._compiler.concept_boosts(text, src)

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
        bit = self._editions.bit.get(ed.id, 0) if ed is not None else 0
        masks = self._editions.docs
        out = set()
        for doc in range(len(self._refs) if ed else self._stop):
            if kinds and self._kinds[doc] not in kinds:
                continue
            if ed is not None and not masks[doc] & bit:
                continue
            out.add(doc)
        self._filters[key] = out
        return out

    # ---- rule numbers ----------------------------------------------------------------------
    def _find_number(self, number: str, lang: str | None, ed: Edition | None) -> Rule | None:
        """The rule a number names in the edition, the language, or the first language holding it."""
        kb = self.kb
        if ed is not None:
            return kb.rule(ed.id, number)
        if lang is not None:
            return kb.find(lang, number)
        for code in LANGS:
            rule = kb.current(number, code) if number in kb.concordance else None
            rule = rule or kb.find(code, number)
            if rule is not None:
                return rule
        return None

    def _find_printed(self, number: str, lang: str | None, ed: Edition | None) -> Rule | None:
        """The rule an edition printed as ``number`` but keeps under another (505.54 of
        2010-06-18 is 505.5; :mod:`kb.knowledge.printed`), in the edition, the language, or the first
        language holding one."""
        if ed is not None:
            return printed_rule(self.kb, ed.lang, number, ed.id)
        for code in (lang,) if lang else LANGS:
            rule = printed_rule(self.kb, code, number)
            if rule is not None:
                return rule
        return None

    def _number_search(
        self,
        numbers: list[str],
        lang: str | None,
        ed: Edition | None,
        limit: int,
        page: int,
        result: SearchResult,
    ) -> SearchResult:
        """The rule a number names with its subrules, or the rules of a range in order."""
        kb = self.kb
        if len(numbers) > 1:
            return self._range_search(numbers, lang, ed, limit, page, result)
        number = numbers[0]
        rule = self._find_number(number, lang, ed)
        # A misprinted number (505.54 of 2010-06-18) names the rule printed so, as `kb rule` does.
        misprint = rule is None and (rule := self._find_printed(number, lang, ed)) is not None
        if rule is None:
            if ed is not None:
                notes = [note("no_rule_in_edition", number=number, edition=ed.id)]
            elif lang is not None:
                notes = [note("no_rule_in_lang", number=number, lang=lang)]
            else:
                notes = [note("no_rule", number=number)]
            near_ed = ed or kb.edition(lang or "en", None)
            near = nearest_rules(kb, near_ed.id, number) if near_ed else []
            if near:
                notes.append(note("nearby", numbers=list(near)))
                result.suggestion = near[0]
            result.tell(*notes)
            return result
        nodes = kb.subtree(rule)
        asked = number if misprint else rule.number
        if rule.canonical and (misprint or rule.canonical != rule.number):
            now = kb.current(rule.canonical, "en")
            title = (now.title or ancestor_title(kb, now)) if now else ""
            where = {"number": asked, "edition": rule.edition, "canonical": rule.canonical}
            if title:
                result.tell(note("renumbered", **where, title=title))
            else:
                result.tell(note("renumbered_untitled", **where))
        elif rule.canonical is None and (ed is not None or misprint):
            result.tell(note("deleted", number=asked, edition=rule.edition))
        result.total = len(nodes)
        result.pages = math.ceil(len(nodes) / limit)
        scope = (lang,) if lang else LANGS
        for node in nodes[(page - 1) * limit : page * limit]:
            hit = self._hits.rule_hit(node, scope, 1.0, "")
            hit.snippet = highlight(node.text or hit.title, set(), [])
            result.hits.append(hit)
        return result

    def _range_search(
        self,
        numbers: list[str],
        lang: str | None,
        ed: Edition | None,
        limit: int,
        page: int,
        result: SearchResult,
    ) -> SearchResult:
        """The rules of a range (``117.3a-d``), each once, in the range's order; a note names the
        numbers of the range that no rule holds."""
        found = [(n, self._find_number(n, lang, ed)) for n in numbers]
        rules = [r for _, r in found if r is not None]
        missing = [n for n, r in found if r is None]
        if not rules:
            return self._number_search(numbers[:1], lang, ed, limit, page, result)
        if missing:
            result.tell(note("range_missing", numbers=missing))
        result.total = len(rules)
        result.pages = math.ceil(len(rules) / limit)
        scope = (lang,) if lang else LANGS
        for rule in rules[(page - 1) * limit : page * limit]:
            hit = self._hits.rule_hit(rule, scope, 1.0, "")
            hit.snippet = highlight(rule.text or hit.title, set(), [])
            result.hits.append(hit)
        return result

    # ---- full text ----------------------------------------------------------------------------
    def _count_groups(
        self, scores: dict[int, float], extra: set[int], current: bool, one_lang: bool
    ) -> int:
        """The number of groups (results) of the documents of ``scores`` and ``extra``, without
        walking a common word's thousands of documents in Python where it can be helped."""
        groups_of = self._groups
        extra = {d for d in extra if d not in scores}
        if not current:
            # Every matching document's group, looked up in C: a common word matches thousands.
            found = (
                set(itemgetter(*scores)(groups_of))
                if len(scores) > 1
                else {groups_of[d] for d in scores}
            )
            return len(found.union(map(groups_of.__getitem__, extra)))
        if one_lang:
            # One language, current documents: each rule or term has one, so documents = groups.
            total = len(scores)
        else:
            # Current documents: most are the only one of their group (a rule's English text,
            # its French and Japanese quotes share one); count only those that share.
            shared = scores.keys() & self._shared  # walks the smaller of the two
            total = len(scores) - len(shared) + len(set(map(groups_of.__getitem__, shared)))
        siblings = self._siblings
        added = set()
        for doc in extra:  # a cited English rule may be the group of a French text found
            group = groups_of[doc]
            if group not in added and not any(d in scores for d in siblings.get(group, ())):
                added.add(group)
        return total + len(added)

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
        boosts: dict[str, float] | None = None,
    ) -> SearchResult:
        scope = (lang,) if lang else LANGS
        compiled = self._compile(text, scope, lang)
        if boosts:  # the rules of the cards a question names (a copy: compilations are cached)
            merged = {
                **boosts,
                **{r: max(f, boosts.get(r, 1.0)) for r, f in compiled.boosts.items()},
            }
            compiled = dataclasses.replace(compiled, boosts=merged)
        notes = list(compiled.notes)
        if compiled.query is None:
            result.tell(*notes, qp.nothing_found(text))
            return result
        allowed = self._allowed(ed, kind)
        ev = Evaluation()
        scores = self._index.evaluate(compiled.query, ed is not None, ev)
        if allowed is not None:
            scores = {d: w for d, w in scores.items() if d in allowed}
        # The questions vote for the rules' English texts: not in a search of another language,
        # of an edition or of one kind of document.
        ask_ev = Evaluation(side=True)
        if not self._asks_apart:
            scores, asks = split_asks(scores, self._asks)
            ask_ev = ev
        elif allowed is None and lang in (None, "en"):
            asks = self._index.evaluate(compiled.query, False, ask_ev, side=True)
        else:
            asks = {}
        if lang not in (None, "en"):
            asks = {}
        fetch = page * limit * (1 if lang else 2) + 10
        # The ranker's reweighing keeps the documents of ``scores``: they still count the total,
        # and so do the documents it joins (cited rules) and the pinned glossary entries.
        scored, joined = self._ranker.order(
            scores,
            compiled,
            ev,
            lang=lang,
            current=ed is None,
            prefer=prefer,
            examples_wanted=compiled.about_examples or kind == "example",
            fetch=fetch,
            asks=asks,
            ask_ev=ask_ev,
        )
        top = scored[0][0] if scored else 1.0
        stop = self._stop if ed is None else len(self._refs)
        pinned = [
            d
            for d in compiled.glossary
            if (d in allowed if allowed is not None else d < stop)
            and (ed is not None or d not in self._withdrawn)  # history is not what a term means
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
            total = len(groups)  # the ranking was fetched whole
        else:
            total = self._count_groups(scores, joined.union(pinned), ed is None, lang is not None)
        result.total = total
        result.pages = math.ceil(total / limit)
        picked = list(groups.values())[(page - 1) * limit : page * limit]
        for score, doc in picked:
            hit = self._hits.hit(doc, score, compiled, scope, ed)
            hit.withdrawn = ed is None and doc in self._withdrawn
            if prefer:
                hit.cross_language = hit.lang != prefer
            result.hits.append(hit)
        # A corrected word matched nothing as typed: the results are only as good as the guess.
        # A word one of the languages knows is no typo ("priority" is not the French "priorite").
        corrections = {k: v for k, v in compiled.corrections.items() if k not in compiled.known}
        if corrections:
            # French corrections come back folded from the index: shown as written ("priorité");
            # the words the reader typed and the index did not correct stay as typed.
            written = lang or prefer
            if written:
                corrections = {
                    w: as_written(self.kb, [r], written)[0] for w, r in corrections.items()
                }
            suggestion = corrected(text, corrections)
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
