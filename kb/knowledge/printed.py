"""Rule numbers as the texts printed them, and numbers that named different rules over time.

The reader keeps a misprinted rule under the number it stands for (505.54 of 2010-06-18 is kept
as 505.5, the second 702.30d of 2009-09-04 as 702.30e) and flags it ``printed-as:<number>``; a
reader who types the printed number still means that rule. And an old number can name one rule
in some editions and another rule later (116.3b: paying life from July 2009 to June 2010, then
the priority rule). These lookups serve both the CLI and the web pages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kb.base.cachemap import shared_cache
from kb.knowledge.model import KnowledgeBase, Rule

__all__ = [
    "MAX_MEANINGS",
    "PRINTED_AS",
    "Meaning",
    "other_meanings",
    "printed_anywhere",
    "printed_as_in",
    "printed_facts",
    "printed_in",
    "printed_number",
    "printed_rule",
    "printed_rules",
]

#: The flag prefix of a rule kept under another number than the one printed.
PRINTED_AS = "printed-as:"
#: The other meanings of a number a rule's CLI text and page name at most (the newest ones).
MAX_MEANINGS = 3


def printed_number(rule: Rule) -> str | None:
    """The number the text printed for ``rule`` when it is kept under another one, else None."""
    return _printed_flag(rule.flags)


def _printed_flag(flags: list[str]) -> str | None:
    for flag in flags:
        if flag.startswith(PRINTED_AS):
            return flag[len(PRINTED_AS) :]
    return None


def printed_in(kb: KnowledgeBase, edition_id: str) -> dict[str, list[str]]:
    """Printed number -> the numbers an edition keeps those rules under, in document order
    (``{"702.30d": ["702.30e"]}`` for 2009-09-04); empty for almost every edition.

    Kept per edition on a loaded knowledge base (read-only; a rebuild replaces it)."""
    cache = shared_cache(kb, "_printed_in")
    found = cache.get(edition_id) if cache is not None else None
    if found is None:
        table = kb.rules.get(edition_id)
        if table is None:
            return {}
        query = getattr(table, "printed_otherwise", None)
        if query is not None:
            rows = query()
        else:
            rows = [(n, table[n].flags) for n in kb.ordered_numbers(edition_id)]
        found = {}
        for number, flags in rows:
            printed = _printed_flag(flags)
            if printed is not None:
                found.setdefault(printed, []).append(number)
        if cache is not None:
            cache[edition_id] = found
    return found


def printed_facts(kb: KnowledgeBase, rule: Rule) -> tuple[str | None, bool, list[str]]:
    """What a reader of ``rule``'s number should know of how its edition printed it: the number
    printed for it when kept under another (None: printed as kept), whether that printed number
    is another rule's too (``rule`` is the second printed so, not a misprint), and the numbers
    the edition keeps the other rules it printed as ``rule.number`` under."""
    printed = printed_number(rule)
    second = printed is not None and kb.rule(rule.edition, printed) is not None
    return printed, second, list(printed_in(kb, rule.edition).get(rule.number, ()))


def printed_as_in(kb: KnowledgeBase, edition_id: str, number: str) -> str | None:
    """The number an edition printed for its rule ``number`` when it keeps it under another
    (``702.30d`` for 702.30e of 2009-09-04), else None; without reading the rule."""
    for printed, kept in printed_in(kb, edition_id).items():
        if number in kept:
            return printed
    return None


def printed_rules(kb: KnowledgeBase, edition_id: str, number: str) -> list[Rule]:
    """The rules an edition printed as ``number`` but keeps under another (the second 702.30d
    of 2009-09-04 is 702.30e; 505.54 of 2010-06-18 is 505.5)."""
    found = [kb.rule(edition_id, n) for n in printed_in(kb, edition_id).get(number, ())]
    return [r for r in found if r is not None]


def printed_anywhere(kb: KnowledgeBase, lang: str, number: str) -> list[Rule]:
    """The rules printed as ``number`` in the newest edition of ``lang`` that printed it so
    (for a lookup without an edition: ``505.54`` is 505.5 of 2010-06-18)."""
    for ed in reversed(kb.editions_of(lang)):
        found = printed_rules(kb, ed.id, number)
        if found:
            return found
    return []


def printed_rule(
    kb: KnowledgeBase, lang: str, number: str, edition_id: str | None = None
) -> Rule | None:
    """The rule printed as ``number`` in an edition (the first, if several), or without one
    in the newest edition of ``lang`` that printed it; None when no text printed it so."""
    if edition_id:
        found = printed_rules(kb, edition_id, number)
    else:
        found = printed_anywhere(kb, lang, number)
    return found[0] if found else None


@dataclass(frozen=True, slots=True)
class Meaning:
    """One rule a number named over a span of editions: the first and last edition that
    printed it so, how many did, and the rule it is now (None: deleted since)."""

    lineage: str
    first: str
    last: str
    editions: int
    canonical: str | None
    text: str


def other_meanings(kb: KnowledgeBase, rule: Rule) -> list[Meaning]:
    """The other rules ``rule``'s number named in other editions of its language, oldest first
    (116.3b of 2019 is the priority rule; from 2009-07-11 to 2010-06-18 it was the paying-life
    rule, now 118.3b). Empty for most numbers, which kept one meaning."""
    own = rule.lineage or rule.canonical or f"{rule.edition}:{rule.number}"
    spans: dict[str, list[Any]] = {}
    for ed_id, (lineage, _canonical) in _lineages(kb, rule.number, rule.lang):
        if lineage == own:
            continue
        span = spans.get(lineage)
        if span is None:
            spans[lineage] = [ed_id, ed_id, 1]
        else:
            span[1] = ed_id
            span[2] += 1
    out = []
    for lineage, (first, last, count) in spans.items():
        newest = kb.rule(last, rule.number)
        text = (newest.title or newest.text) if newest else ""
        canonical = newest.canonical if newest else None
        out.append(Meaning(lineage, first, last, count, canonical, text))
    return out


def _lineages(kb: KnowledgeBase, number: str, lang: str) -> list[tuple[str, tuple[str, Any]]]:
    """``(edition, (lineage, canonical))`` of the rules printed and kept as ``number`` in the
    complete editions of ``lang`` (excerpts quote them), oldest edition first."""
    query = getattr(kb.rules, "lineages_of", None)
    if query is not None:
        rows = query(number, lang)
    else:
        rows = {}
        for ed in kb.editions_of(lang, full_only=True):
            found = kb.rule(ed.id, number)
            if found is not None and printed_number(found) is None:
                lineage = found.lineage or found.canonical or f"{ed.id}:{number}"
                rows[ed.id] = (lineage, found.canonical)
    return [(ed.id, rows[ed.id]) for ed in kb.editions_of(lang, full_only=True) if ed.id in rows]
