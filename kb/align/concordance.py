"""Concordance: follows each rule through renumberings and across languages, computed from the texts.

Two editions of a language are aligned in three passes: headings whose titles agree (which gives
the renumbering of whole rules, e.g. 116 -> 117 in July 2019), then rules whose text is equal once
rule references are masked, then fuzzy matches among what remains near the expected place (and,
last, rules merged into a neighbour or split into pieces: :mod:`kb.align.merges`). A small
override file (``corpus/concordance-overrides.toml``) fixes what the texts cannot tell. Every rule
gets a *lineage* (the canonical number in the newest English edition, or ``<edition>:<number>`` for
a rule deleted since) and translations follow the English numbering they translate. English
editions before July 2009 carry the numbering ``pre-m10`` and are left out here: the rewrite of
July 2009 renumbered every rule, so :mod:`kb.align.premodern` links them by text.
"""

from __future__ import annotations

import difflib
import hashlib
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import Any

from kb.align.merges import pair_carried
from kb.align.pairs import (
    Alignment,
    _ancestor_at,
    _order,
    _parent,
    _parsed,
    _sibling_parents,
    _words,
    mask,
    near_places,
    normalize,
    rule_key,
)
from kb.knowledge.model import M10_FIRST_DATE, Change, Edition, KnowledgeBase, Rule
from kb.text.rulenum import try_parse

#: Minimum similarity (difflib ratio of masked texts) for a fuzzy match to count as the same rule.
FUZZY_MIN = 0.72
#: A rule whose number stayed and whose text is at least this similar is "edited", not replaced.
IN_PLACE_MIN = 0.45
#: ... or at least this similar and opening with the same OPENING words.
REWRITE_MIN = 0.3
OPENING = 5


def align(
    old: Mapping[str, Rule], new: Mapping[str, Rule], overrides: Mapping[str, str] = {}
) -> Alignment:
    """Align the rules of two editions of one language (older first); see the module docstring."""
    result = Alignment()
    taken: set[str] = set()

    def pair(a: str, b: str) -> None:
        result.pairs[a] = b
        taken.add(b)

    for a, b in overrides.items():
        if a in old and b in new:
            pair(a, b)

    # Pass 1 and 2: equal headings and equal masked texts that are unique on both sides.
    new_by_key: dict[str, list[str]] = {}
    for number, rule in new.items():
        new_by_key.setdefault(rule_key(rule), []).append(number)
    old_by_key: dict[str, list[str]] = {}
    for number, rule in old.items():
        old_by_key.setdefault(rule_key(rule), []).append(number)
    ambiguous: list[str] = []
    for key, olds in old_by_key.items():
        news = new_by_key.get(key, [])
        if len(olds) == 1 and len(news) == 1:
            if olds[0] not in result.pairs and news[0] not in taken:
                pair(olds[0], news[0])
        elif news:
            ambiguous.extend(olds)

    result.shifts = _learn_shifts(result.pairs)

    # Equal texts seen more than once: take the one at the expected place.
    for number in ambiguous:
        if number in result.pairs:
            continue
        expected = result.shifted(number) or number
        if (
            expected in new
            and expected not in taken
            and rule_key(new[expected]) == rule_key(old[number])
        ):
            pair(number, expected)

    # Pass 3: fuzzy matches near the expected place (same renumbered parent).
    unmatched_new: dict[str, list[str]] = {}
    for number in new:
        if number not in taken:
            parent = _parent(number)
            unmatched_new.setdefault(parent, []).append(number)
    sibling_parents = _sibling_parents(result)
    for number in sorted(old, key=_order):
        if number in result.pairs:
            continue
        expected = result.shifted(number) or number
        old_key = rule_key(old[number])
        if (
            expected in new
            and expected not in taken
            and _rewritten(old_key, rule_key(new[expected]))
        ):
            pair(number, expected)
            continue
        pools = near_places(number, result, sibling_parents)
        candidates = {c for pool in pools for c in unmatched_new.get(pool, [])}
        best, best_score = None, FUZZY_MIN
        for cand in candidates:
            if cand in taken:
                continue
            score = _ratio(old_key, rule_key(new[cand]))
            if score > best_score:
                best, best_score = cand, score
        if best is not None:
            pair(number, best)

    # Pass 4: a renamed heading (716 "Ending the Turn" -> 720 "Ending Turns and Phases") goes
    # where most of its children went.
    for number in sorted(old, key=_order, reverse=True):
        if number in result.pairs:
            continue
        depth = try_parse(number).depth  # type: ignore[union-attr]
        votes = Counter(
            _ancestor_at(result.pairs[c], depth) for c in old[number].children if c in result.pairs
        )
        if votes:
            target, count = votes.most_common(1)[0]
            if target in new and target not in taken and count * 2 > len(old[number].children):
                pair(number, target)
    # Pass 5: a rule merged into a neighbour or split into pieces (kb.align.merges).
    pair_carried(old, new, result, taken)
    return result


def _aligned(
    kb: KnowledgeBase, old_id: str, new_id: str, overrides: Mapping[str, str], cache: Any
) -> Alignment:
    """:func:`align` of two editions, through the build cache when there is one."""
    if cache is None:
        return align(kb.rules[old_id], kb.rules[new_id], overrides)
    from kb.base import buildcache

    def fingerprint(ed_id: str) -> str:
        memo = ("align-fp", ed_id)
        if memo not in cache.memo:
            cache.memo[memo] = buildcache.digest(
                [(r.number, r.title, r.text) for r in kb.rules[ed_id].values()]
            )
        return cache.memo[memo]

    key = buildcache.digest(
        buildcache.code_digest("align"),
        fingerprint(old_id),
        fingerprint(new_id),
        sorted(overrides.items()),
    )
    hit = cache.get("align", key)
    if hit is not None:
        return Alignment(pairs=hit[0], shifts=hit[1])
    al = align(kb.rules[old_id], kb.rules[new_id], overrides)
    cache.put("align", key, (al.pairs, al.shifts))
    return al


def _rewritten(old_key: str, new_key: str) -> bool:
    """The same rule at the same place, edited: similar enough, or a rewrite that keeps its
    opening words (the 2019 mulligan rules: "In a multiplayer game, the first …")."""
    score = _ratio(old_key, new_key)
    if score >= IN_PLACE_MIN:
        return True
    return score >= REWRITE_MIN and _words(old_key)[:OPENING] == _words(new_key)[:OPENING]


def _ratio(a: str, b: str) -> float:
    """Similarity of two masked texts, word by word (characters would be ten times slower)."""
    matcher = difflib.SequenceMatcher(None, _words(a), _words(b), autojunk=False)
    if matcher.real_quick_ratio() < FUZZY_MIN * 0.5:
        return 0.0
    if matcher.quick_ratio() < IN_PLACE_MIN:
        return matcher.quick_ratio()
    return matcher.ratio()


def _learn_shifts(pairs: Mapping[str, str]) -> dict[int, int]:
    votes: dict[int, Counter[int]] = {}
    for a, b in pairs.items():
        na, nb = _parsed(a), _parsed(b)
        if na and nb and not na.is_section and not nb.is_section:
            votes.setdefault(na.major, Counter())[nb.major] += 1
    return {major: counter.most_common(1)[0][0] for major, counter in votes.items()}


def change_between(old: Rule | None, new: Rule | None) -> str:
    """Classify one rule between two editions: same / moved / edited / created / deleted.

    On a rule (``Rule.change``) "first" replaces "created" in the oldest text of its language,
    which is where the corpus starts, not where the rule was created.
    """
    if old is None:
        return "created"
    if new is None:
        return "deleted"
    if rule_key(old, wording=False) != rule_key(new, wording=False) or [
        mask(e, wording=False) for e in old.examples
    ] != [mask(e, wording=False) for e in new.examples]:
        return "edited"
    return "same" if old.number == new.number else "moved"


def load_overrides(path: Path) -> dict[str, dict[str, str]]:
    """``corpus/concordance-overrides.toml``: ``["en-2011-09-30..en-2016-11-11"] "702.1" = "702.2"``."""
    import tomllib

    if not path.is_file():
        return {}
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    return {pair: {str(k): str(v) for k, v in table.items()} for pair, table in data.items()}


def compute(
    kb: KnowledgeBase,
    overrides: Mapping[str, Mapping[str, str]] = {},
    cache: Any = None,
    aligned: Mapping[str, Alignment] | None = None,
) -> list[str]:
    """Fill in lineage/canonical/change of every rule, ``kb.concordance`` and ``kb.changes``.

    Returns notes for the build summary (e.g. which full editions a partial quote fits). With a
    ``cache`` (:class:`kb.base.buildcache.BuildCache`), a pair of editions aligned before is not aligned
    again: adding an edition to an archive aligns it with its neighbours only. ``aligned``: the
    pairs :func:`align_editions` aligned already (by ``"old..new"``).
    """
    notes: list[str] = []
    # The editions before July 2009 follow another numbering: never aligned by number with the
    # M10 editions (kb.align.premodern links them by text after this).
    english = [e for e in kb.editions_of("en") if not mark_pre_m10(e)]
    full = [e for e in english if e.kind == "full"]
    reference = full[-1] if full else (english[-1] if english else None)
    lineage: dict[str, dict[str, str]] = {ed_id: {} for ed_id in kb.rules}

    if reference is not None:
        ref_rules = kb.rules[reference.id]
        for number in ref_rules:
            lineage[reference.id][number] = number
        # Full editions, newest to oldest: each inherits its successor's lineage.
        for older, newer in zip(reversed(full[:-1]), reversed(full[1:]), strict=True):
            key = f"{older.id}..{newer.id}"
            al = aligned.get(key) if aligned else None
            if al is None:
                al = _aligned(kb, older.id, newer.id, overrides.get(key, {}), cache)
            for number in kb.rules[older.id]:
                target = al.pairs.get(number)
                lineage[older.id][number] = (
                    lineage[newer.id][target] if target else f"{older.id}:{number}"
                )
        # Partial English quotes: by number where they fit a full edition, else by text.
        for ed in english:
            if ed.kind == "full" or ed.id == reference.id:
                continue
            lineage[ed.id] = _place_partial(kb, ed, full, reference, lineage, overrides, notes)

    # Translations follow the English edition (or numbering) they translate, by number.
    for ed in kb.editions.values():
        if ed.lang == "en":
            continue
        lineage[ed.id] = _place_translation(kb, ed, english, reference, lineage, notes)

    kb.concordance = {}
    for ed_id, table in kb.rules.items():
        for number, rule in table.items():
            lin = lineage.get(ed_id, {}).get(number) or f"{ed_id}:{number}"
            rule.canonical = None if ":" in lin else lin
            rule.lineage = lin
            kb.concordance.setdefault(lin, {})[ed_id] = number
    _fill_changes(kb)
    return notes


def align_editions(
    kb: KnowledgeBase, overrides: Mapping[str, Mapping[str, str]] = {}, cache: Any = None
) -> dict[str, Alignment]:
    """:func:`align` of every two successive full English editions that :func:`compute` follows,
    by ``"old..new"`` (so that another process can align them while this one links)."""
    full = [e for e in kb.editions_of("en") if not mark_pre_m10(e) and e.kind == "full"]
    out = {}
    for older, newer in pairwise(full):
        key = f"{older.id}..{newer.id}"
        out[key] = _aligned(kb, older.id, newer.id, overrides.get(key, {}), cache)
    return out


#: ``Edition.numbering`` of the English editions before the rewrite of July 11, 2009 (M10),
#: which renumbered every rule: their numbers mean nothing in the M10 numbering.
PRE_M10 = "pre-m10"
#: How far (in days) the nearest English edition may be from a translation whose own English
#: edition is absent for its numbering to be assumed: further, a renumbering may lie between.
NEAREST_NUMBERING_DAYS = 366


def mark_pre_m10(ed: Edition) -> bool:
    """Mark a full English edition dated before July 11, 2009 with the numbering ``pre-m10``;
    True for such an edition (it is then left to :mod:`kb.align.premodern`)."""
    if ed.lang == "en" and ed.kind == "full" and ed.date and ed.date < M10_FIRST_DATE:
        ed.numbering = PRE_M10
    return ed.numbering == PRE_M10


def lineage_of(rule: Rule) -> str:
    """The id that groups this rule across editions: its canonical number, or edition:number."""
    return rule.lineage or f"{rule.edition}:{rule.number}"


def _place_partial(
    kb: KnowledgeBase,
    ed: Edition,
    full: list[Edition],
    reference: Edition,
    lineage: dict[str, dict[str, str]],
    overrides: Mapping[str, Mapping[str, str]],
    notes: list[str],
) -> dict[str, str]:
    rules = kb.rules[ed.id]
    fits = _fits(rules, [kb.rules[f.id] for f in full], full)
    if fits:
        ed.fits = [f.id for f in fits]
        notes.append(f"{ed.id}: its wording fits {', '.join(ed.fits)}")
        base = fits[-1]
        return {n: lineage[base.id].get(n) or f"{ed.id}:{n}" for n in rules}
    al = align(rules, kb.rules[reference.id], overrides.get(f"{ed.id}..{reference.id}", {}))
    out = {}
    for number in rules:
        target = al.pairs.get(number) or al.shifted(number)
        out[number] = target if target else f"{ed.id}:{number}"
    return out


def _fits(
    rules: Mapping[str, Rule], fulls: list[Mapping[str, Rule]], eds: list[Edition]
) -> list[Edition]:
    """The full editions whose rules of the same numbers read exactly as the quoted ones."""
    scored = []
    for ed, table in zip(eds, fulls, strict=True):
        shared = [n for n in rules if n in table]
        if not shared:
            continue
        exact = sum(1 for n in shared if normalize(table[n].text) == normalize(rules[n].text))
        scored.append((exact / len(rules), ed))
    if not scored:
        return []
    best = max(score for score, _ in scored)
    if best < 0.5:
        return []
    return [ed for score, ed in scored if score == best]


def _place_translation(
    kb: KnowledgeBase,
    ed: Edition,
    english: list[Edition],
    reference: Edition | None,
    lineage: dict[str, dict[str, str]],
    notes: list[str],
) -> dict[str, str]:
    ids = {e.id for e in english}
    base_id = ed.translates if ed.translates in ids else None
    if base_id is None and ed.date:
        # The English text it translates is not in the corpus: the nearest older English
        # edition within a year (the numbering it inherited), else the nearest one.
        dated = [e for e in english if e.kind == "full" and e.date]
        older = [e for e in dated if 0 <= _days(ed.date) - _days(e.date) <= NEAREST_NUMBERING_DAYS]
        if dated:
            nearest = min(older or dated, key=lambda e: abs(_days(e.date) - _days(ed.date)))
            if abs(_days(nearest.date) - _days(ed.date)) <= NEAREST_NUMBERING_DAYS:
                base_id = nearest.id
                notes.append(
                    f"{ed.id}: the English edition it follows is absent; "
                    f"numbering of {base_id} assumed"
                )
            else:
                notes.append(
                    f"{ed.id}: the English edition it follows is absent and the nearest, "
                    f"{nearest.id}, is over a year away; its rules are not linked to English ones"
                )
    out: dict[str, str] = {}
    for number in kb.rules[ed.id]:
        lin = lineage.get(base_id, {}).get(number) if base_id else None
        if lin is None and reference is not None and reference.kind == "partial":
            # No full English text at all: the numbers are taken as the newest numbering's.
            lin = number
        out[number] = lin or f"{ed.id}:{number}"
    return out


def _days(iso: str | None) -> int:
    if not iso:
        return 0
    y, m, d = (int(x) for x in iso.split("-"))
    return y * 372 + m * 31 + d


def _fill_changes(kb: KnowledgeBase) -> None:
    """Per rule: its change since the previous edition of its language having it; per edition pair."""
    kb.changes = {}
    for lang in {e.lang for e in kb.editions.values()}:
        eds = kb.editions_of(lang)
        rows = [
            (
                ed.id,
                ed.kind == "full",
                [
                    (r.number, lineage_of(r), compare_digest(r))
                    for r in kb.rules.get(ed.id, {}).values()
                ],
            )
            for ed in eds
        ]
        for (ed_id, _, _), changes in zip(rows, rule_changes(rows), strict=True):
            table = kb.rules.get(ed_id, {})
            for number, change in changes.items():
                table[number].change = change
        full = [e for e in eds if e.kind == "full"]
        for older, newer in pairwise(full):
            kb.changes[f"{older.id}..{newer.id}"] = diff_editions(kb, older.id, newer.id)


def compare_digest(rule: Rule) -> str:
    """What :func:`change_between` compares, as a short digest (kept in the database, so an
    incremental build classifies changes without reading every text again)."""
    return _compare_digest(rule.title, rule.text, tuple(rule.examples))


@lru_cache(maxsize=1 << 17)
def _compare_digest(title: str | None, text: str, examples: tuple[str, ...]) -> str:
    key = "title:" + mask(title, wording=False) if title else mask(text, wording=False)
    parts = [key, *(mask(e, wording=False) for e in examples)]
    return hashlib.blake2b(
        "\x1f".join(parts).encode("utf-8", "surrogatepass"), digest_size=12
    ).hexdigest()


def rule_changes(
    editions: Iterable[tuple[str, bool, Iterable[tuple[str, str, str]]]],
) -> list[dict[str, str]]:
    """Each rule's change since the previous edition of its language having its lineage.

    ``editions`` are one language's editions oldest first: ``(id, is full, [(number, lineage,
    compare digest)])``; returns ``{number: change}`` per edition. The same answer as
    :func:`change_between` on the rules, "first" in place of "created" before the first full text.
    """
    seen: dict[str, tuple[str, str]] = {}
    full_before = False
    out: list[dict[str, str]] = []
    for _ed_id, is_full, rules in editions:
        changes: dict[str, str] = {}
        for number, lin, digest in rules:
            before = seen.get(lin)
            if before is None:
                change = "created" if full_before else "first"
            elif before[1] != digest:
                change = "edited"
            else:
                change = "same" if before[0] == number else "moved"
            changes[number] = change
            seen[lin] = (number, digest)
        full_before = full_before or is_full
        out.append(changes)
    return out


def diff_editions(kb: KnowledgeBase, old_id: str, new_id: str) -> list[Change]:
    """Every rule that was moved, edited, created or deleted between two editions (any two)."""
    old_by = {lineage_of(r): r for r in kb.rules.get(old_id, {}).values()}
    new_by = {lineage_of(r): r for r in kb.rules.get(new_id, {}).values()}
    out: list[Change] = []
    for lin in _ordered(set(old_by) | set(new_by), old_by, new_by):
        a, b = old_by.get(lin), new_by.get(lin)
        kind = change_between(a, b)
        if kind != "same":
            out.append(Change(kind, a.number if a else None, b.number if b else None))
    return out


def _ordered(
    lins: Iterable[str], old_by: Mapping[str, Rule], new_by: Mapping[str, Rule]
) -> list[str]:
    # Section 9 and rule 900 sort alike: the numbers and lineages break ties, so that the
    # order never depends on the set's (per-process) hashing.
    def key(lin: str) -> tuple[tuple[int, int, int], int, str, str]:
        rule = new_by.get(lin) or old_by[lin]
        return (_order(rule.number), 0 if lin in new_by else 1, rule.number, lin)

    return sorted(lins, key=key)
