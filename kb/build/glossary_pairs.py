"""Pairing a translated glossary with the English one, entry by entry, at build time.

A translation's glossary heading names its English entry (「連繋（れんけい）／Splice」); the name
is looked up in the glossary of the English edition the translation follows (that of its date,
else the nearest older one in the corpus): as printed, then ignoring case and punctuation
("Modal DoubleFaced Cards"), then as the start of a name cut short ("Nonmodal "), then by a near
spelling ("Staion Cards"). A heading that gives no English name (a French glossary) is paired by
its "See rule" targets, and among entries with the same targets by the English glossary's order.
Each pair becomes a :class:`~kb.sources.records.TermPair` that joins the term base
(:func:`kb.knowledge.terms.merge_harvested`), so that search and glossary linking use the translation's
official terms; what stays unpaired is reported with its reason.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from kb.knowledge.model import Edition, GlossaryEntry, KnowledgeBase
from kb.sources.records import GlossaryRecord, Problem, SourceDoc, TermPair
from kb.text.normal import collapse_spaces, nfkc, straight_quotes

__all__ = ["GlossaryPair", "english_glossary_for", "pair_glossaries"]

#: Least similarity (difflib ratio of the loose forms) for a near spelling to name an entry.
NEAR_MIN = 0.88


@dataclass(slots=True)
class GlossaryPair:
    """One translated entry and the English entry it translates (None: unpaired, ``how`` says
    why)."""

    edition: str
    key: str
    en_edition: str | None
    en_key: str | None
    how: str
    line: int
    source: str


def _exact(name: str) -> str:
    return collapse_spaces(straight_quotes(nfkc(name))).strip().casefold()


def _loose(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", _exact(name))


def english_glossary_for(kb: KnowledgeBase, ed: Edition) -> Edition | None:
    """The English edition whose glossary a translation is paired with: the one it translates,
    else the nearest older full English edition with a glossary, else the nearest newer."""
    english = [e for e in kb.editions_of("en", full_only=True) if kb.glossary.get(e.id)]
    if ed.translates and any(e.id == ed.translates for e in english):
        return kb.editions[ed.translates]
    if not english:
        return None
    date = ed.date or (ed.translates or "")[3:]
    older = [e for e in english if e.date and e.date <= date]
    return older[-1] if older else english[0]


class _Finder:
    """The English entries by their names' exact and loose forms, in the glossary's order."""

    def __init__(self, entries: Iterable[GlossaryEntry]) -> None:
        self.entries = list(entries)
        self.order = {e.key: i for i, e in enumerate(self.entries)}
        self.exact: dict[str, str] = {}
        self.loose: dict[str, str] = {}
        for entry in self.entries:
            for name in (entry.term, *entry.aliases):
                self.exact.setdefault(_exact(name), entry.key)
                self.loose.setdefault(_loose(name), entry.key)

    def by_name(self, names: list[str], refs: list[str]) -> tuple[str | None, str]:
        """The entry a heading's English names give, and how it was found (else why not)."""
        for name in names:
            if _exact(name) in self.exact:
                return self.exact[_exact(name)], "name"
        for name in names:
            if _loose(name) in self.loose:
                return self.loose[_loose(name)], "name, ignoring case and punctuation"
        for name in names:
            if name != name.rstrip() or len(names) == 1:
                start = _loose(name)
                found = sorted({k for form, k in self.loose.items() if form.startswith(start)})
                if len(found) > 1:
                    found = [k for k in found if self._refs(k) == refs] or found
                if len(found) == 1 and start:
                    return found[0], f"name cut short ({name!r})"
        for name in names:
            near = difflib.get_close_matches(_loose(name), list(self.loose), n=2, cutoff=NEAR_MIN)
            if near:
                return self.loose[near[0]], f"near spelling ({name!r})"
        return None, f"no English entry named {' / '.join(names)!r}"

    def _refs(self, key: str) -> list[str]:
        return next((e.rule_refs for e in self.entries if e.key == key), [])

    def with_refs(self, refs: list[str], taken: set[str]) -> list[str]:
        """The entries not yet paired whose "See rule" targets are ``refs``, in their order."""
        return [e.key for e in self.entries if refs and e.rule_refs == refs and e.key not in taken]


def pair_glossaries(
    kb: KnowledgeBase, docs: Iterable[SourceDoc], problems: list[Problem]
) -> tuple[list[TermPair], list[GlossaryPair], list[str]]:
    """Pair every translated glossary entry of ``docs`` with its English entry; returns the term
    pairs for the term base, every pair (and unpaired entry), and notes for the build summary."""
    records: dict[str, list[tuple[SourceDoc, GlossaryRecord]]] = {}
    for doc in docs:
        if doc.lang != "en" and doc.glossary and doc.kind in ("cr", "cr-partial"):
            ed_id = f"{doc.lang}-{doc.date}" if doc.date else None
            if ed_id in kb.editions:
                records.setdefault(ed_id, []).extend((doc, r) for r in doc.glossary)
    term_pairs: list[TermPair] = []
    pairs: list[GlossaryPair] = []
    notes: list[str] = []
    for ed_id, recs in records.items():
        english = english_glossary_for(kb, kb.editions[ed_id])
        finder = _Finder(kb.glossary[english.id].values()) if english else None
        got = _pair_edition(ed_id, english.id if english else None, finder, recs)
        pairs += got
        table = kb.glossary[english.id] if english else {}
        for (doc, rec), pair in zip(recs, got, strict=True):
            if pair.en_key is None:
                problems.append(
                    Problem(doc.path, rec.line, f"glossary entry {rec.term!r} unpaired: {pair.how}")
                )
                if finder is None and rec.en_names:  # no English glossary: the names as printed
                    term_pairs.append(
                        TermPair(doc.lang, rec.term, rec.en_names[0].strip(), rec.line)
                    )
                continue
            en = table[pair.en_key]
            term_pairs.append(TermPair(doc.lang, rec.term, en.term, rec.line))
            if len(rec.aliases) + 1 == len(rec.en_names):
                for alias, name in zip(rec.aliases, rec.en_names[1:], strict=True):
                    term_pairs.append(TermPair(doc.lang, alias, name.strip(), rec.line))
        paired = [p for p in got if p.en_key]
        exact = sum(1 for p in paired if p.how == "name")
        targets = sum(1 for p in paired if p.how.startswith("rule targets"))
        notes.append(
            f"{ed_id}: glossary entries paired with {english.id if english else 'no English'}'s: "
            f"{len(paired)} of {len(got)} ({exact} by their English name as printed, "
            f"{len(paired) - exact - targets} by a near form or one sense of it, {targets} by "
            f"rule targets), {len(got) - len(paired)} unpaired"
        )
    return term_pairs, pairs, notes


def _pair_edition(
    ed_id: str,
    en_id: str | None,
    finder: _Finder | None,
    recs: list[tuple[SourceDoc, GlossaryRecord]],
) -> list[GlossaryPair]:
    """Names first; then entries without a name, by their targets between their neighbours."""
    out: list[GlossaryPair] = []
    for doc, rec in recs:
        key = rec.term.strip().lower()
        if finder is None:
            how = "no English glossary in the corpus to pair with"
            out.append(GlossaryPair(ed_id, key, None, None, how, rec.line, doc.path))
            continue
        names = [n for n in rec.en_names if n.strip()]
        en_key, how = finder.by_name(names, rec.rule_refs) if names else (None, "")
        if en_key is not None and rec.sense:
            how += f", sense {rec.sense}"
        out.append(
            GlossaryPair(ed_id, key, en_id if en_key else None, en_key, how, rec.line, doc.path)
        )
    if finder is None:
        return out
    # Entries without a name: those sharing the same targets pair, in their order, with the
    # English entries of those targets in the English glossary's order, when as many are left.
    taken = {p.en_key for p in out if p.en_key}
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, (pair, (_doc, rec)) in enumerate(zip(out, recs, strict=True)):
        if pair.en_key is None and not rec.en_names:
            groups.setdefault(tuple(rec.rule_refs), []).append(i)
    for refs, members in groups.items():
        found = finder.with_refs(list(refs), taken)
        if not refs or len(found) != len(members):
            for i in members:
                out[i].how = (
                    f"no English name, and {len(members)} entries without one refer to "
                    f"rules ({', '.join(refs) or 'none'}) as {len(found)} English entries do"
                )
            continue
        how = "rule targets" if len(found) == 1 else "rule targets and glossary order"
        for i, key in zip(members, found, strict=True):
            out[i].en_key, out[i].en_edition, out[i].how = key, en_id, how
            taken.add(key)
    return out
