"""Results assembly: a scored document becomes a :class:`~kb.search.results.Hit` with its title,
editions and highlighted snippet, read from the knowledge base."""

from __future__ import annotations

from typing import Any

from kb.knowledge.lookup import ancestor_title
from kb.knowledge.model import LANGS, Edition, KnowledgeBase, Rule
from kb.search.analysis import ANALYZERS
from kb.search.compiled import Compiled
from kb.search.documents import example_prose
from kb.search.highlight import gram_marker, highlight, marker
from kb.search.results import Hit
from kb.search.snippets import SnippetSpans


class EditionSets:
    """The editions of each document as one integer, a bit per edition: an archive's documents
    are in up to 80 editions each, and lists of their names cost a server 20 MB.

    Bits are given in the order hits list editions (language, then date), so a set reads back
    already sorted.
    """

    def __init__(self, kb: KnowledgeBase, doc_editions: list[list[str]]) -> None:
        known = kb.editions
        ids = {e for eds in doc_editions for e in eds}
        ordered = sorted(
            (e for e in ids if e in known),
            key=lambda e: (LANGS.index(known[e].lang), known[e].date or "", e),
        )
        # Editions the knowledge base does not have come last and are never listed.
        self.ids = ordered + sorted(ids - set(ordered))
        self.bit = {e: 1 << i for i, e in enumerate(self.ids)}
        self._by_lang = {
            code: sum(self.bit[e] for e in ordered if known[e].lang == code) for code in LANGS
        }
        self.docs = [self.mask(eds) for eds in doc_editions]
        self._of_scope: dict[tuple[str, ...], int] = {}  # the editions of a scope's languages
        self._names: dict[int, tuple[str, ...]] = {}  # a set of editions -> their names

    def mask(self, editions: list[str]) -> int:
        """The set of ``editions`` (names this index knows)."""
        bit = self.bit
        out = 0
        for e in editions:
            out |= bit[e]
        return out

    def names(self, mask: int, scope: tuple[str, ...]) -> list[str]:
        """The editions of ``mask`` in the languages of ``scope``, in order."""
        of_scope = self._of_scope.get(scope)
        if of_scope is None:
            of_scope = self._of_scope[scope] = sum(self._by_lang[code] for code in scope)
        mask &= of_scope
        # Most rules are in the same few sets of editions: each set is read once.
        known = self._names.get(mask)
        if known is None:
            ids = self.ids
            out = []
            bits = mask
            while bits:
                low = bits & -bits
                out.append(ids[low.bit_length() - 1])
                bits ^= low
            known = tuple(out)
            if len(self._names) < 4096:
                self._names[mask] = known
        return list(known)


class HitMaker:
    """Makes the hits of one index's documents (``meta.json`` rows) from the knowledge base."""

    def __init__(
        self,
        kb: KnowledgeBase,
        refs: list[str],
        langs: list[str],
        groups: list[str],
        editions: EditionSets,
        spans: SnippetSpans | None = None,
    ) -> None:
        self.kb = kb
        self._spans = spans  # the build's offsets of the documents' terms
        self._refs = refs
        self._langs = langs
        self._groups = groups
        self._sets = editions
        self._group_editions: dict[str, int] = {}
        for group, mask in zip(groups, editions.docs, strict=True):
            self._group_editions[group] = self._group_editions.get(group, 0) | mask
        self._titles: dict[tuple[str, str], str] = {}
        self._ids: dict[str, dict[str, Any]] = {}
        # A current rule's hit without score and snippet, and its snippet's text, by document
        # and scope (see :meth:`hit`).
        self._rule_facts: dict[tuple[int, tuple[str, ...]], tuple[Hit, str]] = {}

    def hit(
        self,
        doc: int,
        score: float,
        compiled: Compiled,
        scope: tuple[str, ...],
        ed: Edition | None,
    ) -> Hit:
        """Document ``doc`` as a hit, its snippet marking the words of ``compiled``; a rule of
        a search limited to edition ``ed`` is shown in that edition."""
        ref = self._refs[doc]
        kind, _, rest = ref.partition("|")
        lang = self._langs[doc]
        wanted = compiled.wanted.get(lang)
        if wanted is None:
            # The terms marked in a text of ``lang``, once per query and language.
            marks = compiled.marks
            if lang == "ja":
                wanted = marks.get("ja", set()) | marks.get("ja_gram", set())
            else:
                wanted = marks.get(lang, set())
            compiled.wanted[lang] = wanted
        cross = compiled.src is not None and compiled.src != lang
        if kind == "r":
            # What a current rule's hit shows besides its score and snippet is a fact of the
            # knowledge base, made on the rule's first hit in a scope and copied after.
            facts = self._rule_facts.get((doc, scope)) if ed is None else None
            if facts is None:
                ed_id, number = rest.split("|", 1)
                if ed is not None:
                    ed_id = ed.id
                rule = self.kb.rules[ed_id][number]
                facts = (
                    self.rule_hit(rule, scope, 0.0, ""),
                    "\n".join([rule.text, *rule.examples]).strip(),
                )
                if ed is None and len(self._rule_facts) < _RULE_FACTS:
                    self._rule_facts[(doc, scope)] = facts
            model, body = facts
            # Made field by field: dataclasses.replace costs 1.8 us a hit against 0.4 here.
            hit = Hit(
                model.kind,
                model.number,
                model.lang,
                model.edition,
                list(model.editions),
                model.canonical,
                model.title,
                "",
                score,
                key=model.key,
            )
            # The rule's own text is its document's body or the start of it: the stored spans.
            hit.snippet = self._snippet(doc, lang, body or hit.title, wanted, compiled, bool(body))
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
                self._snippet(doc, lang, entry.definition, wanted, compiled, True),
                score,
                key=key,
            )
        else:
            hit = self._other_hit(doc, kind, rest, lang, score, wanted, compiled)
        hit.cross_language = cross
        return hit

    def _snippet(
        self, doc: int, lang: str, text: str, wanted: set[str], compiled: Compiled, body: bool
    ) -> str:
        """``text`` highlighted for ``wanted``: at the offsets the build stored when ``text`` is
        document ``doc``'s body (or its start), else by analysing it."""
        if not wanted:
            return highlight(text, wanted, [])
        if body and self._spans is not None:
            found = self._spans.marks(doc, lang, text, wanted)
            if found is not None:
                return highlight(text, wanted, [], marks=found)
        return highlight(text, wanted, self._analyzers(lang, wanted, compiled))

    @staticmethod
    def _analyzers(lang: str, wanted: set[str], compiled: Compiled) -> list[Any]:
        """The analysers marking ``wanted`` in a text of ``lang`` (made once per query)."""
        if lang == "ja":
            grams = compiled.markers.get("ja_gram")
            if grams is None:
                grams = compiled.markers["ja_gram"] = gram_marker(wanted)
            return [ANALYZERS["ja"], grams]
        mark = compiled.markers.get(lang)
        if mark is None:
            mark = compiled.markers[lang] = marker(lang, wanted)
        return [mark]

    def _other_hit(
        self,
        doc: int,
        kind: str,
        ident: str,
        lang: str,
        score: float,
        wanted: set[str],
        compiled: Compiled,
    ) -> Hit:
        if kind == "c":
            com = self._by_id("c", self.kb.commentary)[ident]
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
                self._snippet(doc, lang, com.text, wanted, compiled, True),
                score,
                key=ident,
            )
        if kind == "t":
            item = self._by_id("t", self.kb.tournament)[ident]
            return Hit(
                "tournament",
                item.section,
                lang,
                None,
                [],
                None,
                # The section's name: the page shows it after the hit's number ("4.2").
                item.title or item.heading,
                self._snippet(doc, lang, item.text, wanted, compiled, True),
                score,
                key=ident,
            )
        ident, _, told = ident.partition("|")  # "<id>|fr": the example's French translation
        ex = self._by_id("x", self.kb.examples)[ident]
        prose = ex.prose.get(told, "") if told else example_prose(ex.markdown)
        return Hit(
            "example",
            None,
            lang,
            None,
            [],
            ex.rules[0] if ex.rules else None,
            ex.titles.get(told, ex.title) if told else ex.title,
            self._snippet(doc, lang, prose or ex.title, wanted, compiled, bool(prose)),
            score,
            key=ident,
        )

    def _by_id(self, kind: str, items: Any) -> dict[str, Any]:
        """Commentary, tournament items or examples by id (made on first use: hits of those
        kinds are a few per query, and a scan of each list cost up to 3 ms)."""
        found = self._ids.get(kind)
        if found is None:
            found = self._ids[kind] = {}
            for item in items:
                found.setdefault(item.id, item)
        return found

    def rule_hit(self, rule: Rule, scope: tuple[str, ...], score: float, snippet: str) -> Hit:
        """A rule as a hit: its editions in the languages of ``scope``, its title or its
        nearest titled ancestor's."""
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
            title = ancestor_title(self.kb, rule)
            if len(self._titles) < 100_000:
                self._titles[key] = title
        return title

    def _editions(self, group: str, scope: tuple[str, ...]) -> list[str]:
        return self._sets.names(self._group_editions.get(group, 0), scope)


#: How many current rules' hits :class:`HitMaker` keeps made (about 0.5 KB each: 4 MB).
_RULE_FACTS = 8192


def _opening(text: str, limit: int = 40) -> str:
    """The first words of ``text``, at most ``limit`` characters (an ellipsis if cut)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
