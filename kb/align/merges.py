"""Merges and splits between two editions: the last pass of :func:`kb.align.concordance.align`.

A rule merged into a neighbour, or cut into pieces, keeps too little of its text at any one
number for the passes by equal or similar text; its words are still there, in order, inside a
larger rule or as a smaller one. On the shared editions (2009-07-11 to 2025-11-14, 75 pairs) this
pass adds 34 pairs to the 3,000-odd of each pair and changes none.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from kb.align.pairs import (
    Alignment,
    _order,
    _parent,
    _sibling_parents,
    _words,
    near_places,
    rule_key,
)
from kb.knowledge.model import Rule

__all__ = ["CARRIED_MIN", "CARRIED_WORDS", "pair_carried"]

#: The smaller text, of at least CARRIED_WORDS words, has this share of its words, in order, in
#: the other.
CARRIED_MIN = 0.7
CARRIED_WORDS = 8


def pair_carried(
    old: Mapping[str, Rule], new: Mapping[str, Rule], result: Alignment, taken: set[str]
) -> None:
    """Pass 5 of :func:`kb.align.concordance.align`: a rule merged into a neighbour or split into
    pieces (2025-11-14: old 500.4's emptying of mana pools is the second sentence of new 500.5;
    old 500.5's "until end of combat" sentence is new 500.5a). Among the rules left near the expected place (as pass 3,
    and the subrules under them), an old and a new rule pair when the smaller text is mostly in
    the other (CARRIED_MIN); the pairs that share most words first, each rule once."""
    unmatched = [n for n in new if n not in taken and not new[n].title]
    near: dict[str, list[str]] = {}
    for number in unmatched:
        near.setdefault(_parent(number), []).append(number)
        near.setdefault(_parent(_parent(number)), []).append(number)
    sibling_parents = _sibling_parents(result)
    words: dict[str, tuple[str, ...]] = {}  # a candidate's words, split once
    found: list[tuple[int, str, str]] = []
    for number in sorted(old, key=_order):
        if number in result.pairs or old[number].title:
            continue
        pools = near_places(number, result, sibling_parents)
        a = _words(rule_key(old[number]))
        for cand in {c for pool in pools if pool for c in near.get(pool, [])}:
            b = words.get(cand)
            if b is None:
                b = words[cand] = _words(rule_key(new[cand]))
            if min(len(a), len(b)) < CARRIED_WORDS:
                continue
            blocks = difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
            shared = sum(block.size for block in blocks)
            if shared >= CARRIED_MIN * min(len(a), len(b)):
                found.append((shared, number, cand))
    for _shared, number, cand in sorted(found, key=lambda f: (-f[0], _order(f[1]), _order(f[2]))):
        if number not in result.pairs and cand not in taken:
            result.pairs[number] = cand
            taken.add(cand)
