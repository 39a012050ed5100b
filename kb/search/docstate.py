"""Which search document each rule and glossary entry is, kept between builds so that adding one
edition to an archive does not read the archive's 180,000 rules again.

The index has one document per distinct text (:func:`kb.search.indexer.documents`). A
:class:`DocState` records what that needs of every rule and glossary entry: its distinct text
(language, number, canonical number, title, body, kind, prior, own length), stored once, and per
edition the ``(number, text id)`` of its rules in their order. :func:`assemble` makes the
documents from it in the order, grouping and "current" marking of a pass over the knowledge
base itself; a full build makes the state from the knowledge base (:meth:`DocState.of`), an
incremental one updates the previous build's (:meth:`DocState.add_edition`,
:meth:`DocState.recanonicalise`), and both assemble the documents the same way.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kb.knowledge.model import GlossaryEntry, KnowledgeBase, Rule
from kb.search.documents import (
    KIND_BOOST,
    Doc,
    example_prose,
    example_script,
    rule_prior,
    rule_title,
)

#: A rule's text: language, number, canonical, title, body, kind, prior, length of its own text.
RuleText = tuple[str, str, str | None, str | None, str, str, float, int]
#: A glossary entry's: language, key, title, definition, names (term and aliases).
GlossaryText = tuple[str, str, str, str, tuple[str, ...]]


#: One edition's rules or glossary entries: their numbers (keys) and text ids, in order.
Column = tuple[list[str], "array[int]"]


@dataclass
class DocState:
    """The distinct texts of the rules and glossary entries, and each edition's list of them."""

    texts: list[RuleText] = field(default_factory=list)
    rules: dict[str, Column] = field(default_factory=dict)
    glossary_texts: list[GlossaryText] = field(default_factory=list)
    glossary: dict[str, Column] = field(default_factory=dict)

    def __getstate__(self) -> dict[str, Any]:
        # Each edition as one string of numbers and one array of ids: unpickling 180,000 small
        # tuples cost half a second.
        def packed(columns: dict[str, Column]) -> dict[str, tuple[str, bytes]]:
            return {ed: ("\x00".join(keys), ids.tobytes()) for ed, (keys, ids) in columns.items()}

        return {
            "texts": self.texts,
            "glossary_texts": self.glossary_texts,
            "rules": packed(self.rules),
            "glossary": packed(self.glossary),
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        def unpacked(columns: dict[str, tuple[str, bytes]]) -> dict[str, Column]:
            out: dict[str, Column] = {}
            for ed, (keys, data) in columns.items():
                ids = array("l")
                ids.frombytes(data)
                out[ed] = (keys.split("\x00") if keys else [], ids)
            return out

        self.texts = state["texts"]
        self.glossary_texts = state["glossary_texts"]
        self.rules = unpacked(state["rules"])
        self.glossary = unpacked(state["glossary"])

    # ---- making and updating -------------------------------------------------------------
    @classmethod
    def of(cls, kb: KnowledgeBase) -> DocState:
        """The state of a knowledge base held in memory (a full build)."""
        state = cls()
        for ed_id, table in kb.rules.items():
            state.add_rules(ed_id, table)
        for ed_id, entries in kb.glossary.items():
            state.add_glossary(ed_id, entries)
        return state

    def _ids(self, name: str) -> dict[Any, int]:
        """Text -> id of ``texts`` or ``glossary_texts`` (made on first use)."""
        ids = self.__dict__.get(f"_{name}_ids")
        if ids is None:
            ids = {}
            for i, text in enumerate(getattr(self, name)):
                ids.setdefault(text, i)
            self.__dict__[f"_{name}_ids"] = ids
        return ids

    def _text_id(self, text: RuleText) -> int:
        ids = self._ids("texts")
        found = ids.get(text)
        if found is None:
            found = ids[text] = len(self.texts)
            self.texts.append(text)
        return found

    def add_rules(self, ed_id: str, table: Mapping[str, Rule]) -> None:
        """An edition's rules (with their canonical numbers), in the table's order."""
        keys, ids = [], array("l")
        for rule in table.values():
            # A subrule's body ends with its rule's title (see indexer.documents).
            context = "" if rule.title else rule_title(table, rule)  # type: ignore[arg-type]
            body = "\n".join([rule.text, *rule.examples, context]).strip()
            text: RuleText = (
                rule.lang,
                rule.number,
                rule.canonical,
                rule.title,
                body,
                rule.kind,
                rule_prior(rule),
                len(rule.text),
            )
            keys.append(rule.number)
            ids.append(self._text_id(text))
        self.rules[ed_id] = (keys, ids)

    def add_glossary(self, ed_id: str, entries: Mapping[str, GlossaryEntry]) -> None:
        """An edition's glossary, in its order."""
        known = self._ids("glossary_texts")
        keys, ids = [], array("l")
        for entry in entries.values():
            names = (entry.term, *entry.aliases)
            text: GlossaryText = (
                entry.lang,
                entry.key,
                " ; ".join(names),
                entry.definition,
                names,
            )
            found = known.get(text)
            if found is None:
                found = known[text] = len(self.glossary_texts)
                self.glossary_texts.append(text)
            keys.append(entry.key)
            ids.append(found)
        self.glossary[ed_id] = (keys, ids)

    def add_edition(
        self, ed_id: str, rules: Mapping[str, Rule], glossary: Mapping[str, GlossaryEntry]
    ) -> None:
        """One edition added (an incremental build): its rules and glossary."""
        self.add_rules(ed_id, rules)
        self.add_glossary(ed_id, glossary)

    def recanonicalise(self, canonical: Mapping[str, Mapping[str, str | None]]) -> int:
        """Give the rules of ``canonical`` (edition -> number -> canonical number; the rules it
        does not name keep theirs) that number where it differs from the recorded one; returns
        how many changed."""
        changed = 0
        texts = self.texts
        for ed_id, table in canonical.items():
            column = self.rules.get(ed_id)
            if column is None or not table:
                continue
            keys, ids = column
            at = {n: i for i, n in enumerate(keys)}
            for number, now in table.items():
                i = at.get(number)
                if i is None:
                    continue
                text = texts[ids[i]]
                if text[2] != now:
                    ids[i] = self._text_id((*text[:2], now, *text[3:]))  # type: ignore[arg-type]
                    changed += 1
        return changed

    def compact(self) -> DocState:
        """The same state without the texts no rule or entry uses any more."""
        out = DocState()
        for ed_id, (keys, ids) in self.rules.items():
            out.rules[ed_id] = (list(keys), array("l", (out._text_id(self.texts[i]) for i in ids)))
        known = out._ids("glossary_texts")
        for ed_id, (keys, ids) in self.glossary.items():
            kept = array("l")
            for gid in ids:
                text = self.glossary_texts[gid]
                found = known.get(text)
                if found is None:
                    found = known[text] = len(out.glossary_texts)
                    out.glossary_texts.append(text)
                kept.append(found)
            out.glossary[ed_id] = (list(keys), kept)
        return out


def assemble(state: DocState, kb: KnowledgeBase) -> list[Any]:
    """The index's documents (:func:`kb.search.indexer.documents`) from ``state``, and the
    commentary, tournament rules and examples of ``kb`` (whose editions give the order)."""
    docs: list[Doc] = []
    newest_by_group: dict[tuple[str, str], tuple[str, Doc]] = {}
    order = {e.id: (e.date or "", e.id) for e in kb.editions.values()}
    # A text and another that differ only in kind, prior or length share a document (the first's).
    first: dict[Any, int] = {}
    same = [first.setdefault(text[:5], i) for i, text in enumerate(state.texts)]
    by_text: dict[int, Doc] = {}
    # Oldest edition first, so a document's reference ends up in the newest edition having it.
    for ed_id in sorted(state.rules, key=lambda e: order.get(e, ("", e))):
        numbers, ids = state.rules[ed_id]
        for number, tid in zip(numbers, ids, strict=True):
            key = same[tid]
            doc = by_text.get(key)
            if doc is None:
                lang, num, canon, title, body, kind, prior, main = state.texts[tid]
                doc = Doc(
                    ref="",
                    kind=kind,
                    lang=lang,
                    group=f"r:{canon}" if canon else f"r:{lang}:{ed_id}:{num}",
                    # The number leads the title: "117.3a" in a query finds the rule itself.
                    title=f"{num} {title or ''}".strip(),
                    body=body,
                    number=num,
                    canonical=canon or "",
                    current=False,
                    prior=prior,
                    main=main,
                )
                by_text[key] = doc
                docs.append(doc)
            doc.ref = f"r|{ed_id}|{number}"
            doc.editions.append(ed_id)
            newest_by_group[(doc.lang, doc.group)] = (ed_id, doc)
    first = {}
    same = [first.setdefault(text[:4], i) for i, text in enumerate(state.glossary_texts)]
    by_entry: dict[int, Doc] = {}
    for ed_id in sorted(state.glossary, key=lambda e: order.get(e, ("", e))):
        keys, ids = state.glossary[ed_id]
        for key, gid in zip(keys, ids, strict=True):
            lang, _, title, definition, names = state.glossary_texts[gid]
            doc = by_entry.get(same[gid])
            if doc is None:
                doc = Doc(
                    ref="",
                    kind="glossary",
                    lang=lang,
                    group=f"g:{lang}:{key}",
                    title=title,
                    body=definition,
                    current=False,
                    prior=KIND_BOOST["glossary"],
                )
                by_entry[same[gid]] = doc
                docs.append(doc)
            doc.ref = f"g|{ed_id}|{key}"
            doc.names = names
            doc.editions.append(ed_id)
            newest_by_group[(lang, doc.group)] = (ed_id, doc)
    # Default searches see, for each rule (or term) and language, its newest version only; a
    # rule deleted from a language that has a full text (no canonical number) is history.
    has_full = {e.lang for e in kb.editions.values() if e.kind == "full"}
    for _ed, doc in newest_by_group.values():
        doc.current = bool(doc.canonical) or doc.kind == "glossary" or doc.lang not in has_full
    docs.extend(_other_documents(kb))
    for doc in docs:
        if doc.kind in KIND_BOOST and doc.kind != "glossary":
            doc.prior = KIND_BOOST[doc.kind]
    # Current documents first: default searches stop at the first non-current document number.
    docs.sort(key=lambda d: not d.current)
    return docs


def _other_documents(kb: KnowledgeBase) -> Iterable[Any]:
    """The commentary, tournament rules, engine examples (one document per language they are
    told in: the English Markdown, the French and Japanese translations' title and prose) and
    the questions players ask (one document each, voting for the rules they cite: see
    :mod:`kb.search.votes`)."""
    for com in kb.commentary:
        yield Doc(f"c|{com.id}", "commentary", com.lang, f"c:{com.id}", com.heading or "", com.text)
    for item in kb.tournament:
        # One result per section of a language's tournament rules (MTR 4.2's bullets are one):
        # its paragraphs do not crowd the rules out of a page, the best of them stands for it.
        group = f"t:{item.lang}:{item.section}"
        yield Doc(f"t|{item.id}", "tournament", item.lang, group, item.heading, item.text)
    for ex in kb.examples:
        # The prose is what the example is about; its game script ("Bob passes") only adds
        # words at the weight of a rule's examples, so it is found but never outranks the prose.
        prose = example_prose(ex.markdown)
        script = example_script(ex.markdown)
        yield Doc(
            f"x|{ex.id}",
            "example",
            "en",
            f"x:{ex.id}",
            ex.title,
            f"{prose}\n{script}".strip(),
            main=len(prose) if script else -1,
        )
        for lang, title in ex.titles.items():
            if lang != "en" and title:
                yield Doc(
                    f"x|{ex.id}|{lang}",
                    "example",
                    lang,
                    f"x:{ex.id}",
                    title,
                    ex.prose.get(lang, ""),
                )
    for ask in kb.asks:
        yield Doc(f"a|{ask.id}", "ask", ask.lang, f"a:{ask.id}", "", ask.q)
