"""What the concordance's passes share: texts compared with rule references masked
(:func:`rule_key`), the pairs found so far (:class:`Alignment`) and where a rule is expected
(:func:`near_places`), and memoised rule-number helpers. :mod:`kb.align.concordance` and
:mod:`kb.align.merges` both import it; neither imports the other at module level.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from kb.knowledge.model import Rule
from kb.text.normal import collapse_spaces, nfkc, straight_quotes
from kb.text.rulenum import RuleNumber, try_parse

_REF = re.compile(r"\b\d{3}(?:\.\d{1,3}[a-z]?)?(?:[–-](?:\d{1,3}[a-z]?|[a-z]))?\b")
# The texts switched from "he or she" to "they" in 2019; treat the two as equal wording.
_PRONOUNS = [
    (re.compile(r"\bhe or she is\b"), "they are"),
    (re.compile(r"\bhe or she has\b"), "they have"),
    (re.compile(r"\bhe or she\b"), "they"),
    (re.compile(r"\bhis or her\b"), "their"),
    (re.compile(r"\bhim or her\b"), "them"),
    (re.compile(r"\bhimself or herself\b"), "themselves"),
]


def normalize(text: str) -> str:
    """Text for comparison: NFKC, straight quotes, single spaces, lower case."""
    return collapse_spaces(straight_quotes(nfkc(text)).replace("_", "")).lower()


@lru_cache(maxsize=1 << 16)
def mask(text: str, *, wording: bool = True) -> str:
    """Normalised text with rule references masked, so a renumbered reference is no edit.

    With ``wording`` the 2019 pronoun change is folded too: right for finding the same rule, wrong
    for telling whether its text changed.
    """
    masked = _REF.sub("#", normalize(text))
    if wording:
        for pattern, repl in _PRONOUNS:
            masked = pattern.sub(repl, masked)
    return masked


def rule_key(rule: Rule, *, wording: bool = True) -> str:
    """What identifies a rule's content: its title for a heading, else its masked text."""
    if rule.title:
        return "title:" + mask(rule.title, wording=wording)
    return mask(rule.text, wording=wording)


@dataclass
class Alignment:
    """The result of aligning an older edition with a newer one: old number -> new number."""

    pairs: dict[str, str] = field(default_factory=dict)
    #: old rule major -> new rule major, learnt from the matched rules (``116`` -> ``117``).
    shifts: dict[int, int] = field(default_factory=dict)

    def shifted(self, number: str) -> str | None:
        """The number with its rule part renumbered as its siblings were (for unmatched rules)."""
        num = try_parse(number)
        if num is None or num.is_section or num.major not in self.shifts:
            return None
        new_major = self.shifts[num.major]
        return str(type(num)(new_major, num.minor, num.letter))


def _sibling_parents(result: Alignment) -> dict[str, set[str]]:
    """Old parent -> the new parents its matched subrules went to."""
    out: dict[str, set[str]] = {}
    for a, b in result.pairs.items():
        out.setdefault(_parent(a), set()).add(_parent(b))
    return out


def near_places(
    number: str, result: Alignment, sibling_parents: Mapping[str, set[str]]
) -> set[str]:
    """The new parents near old rule ``number``'s expected place: its renumbered parent, where
    its parent went, and where its matched siblings went (110.5b/d became 111.3/5, so 110.5c
    is near 111.4)."""
    expected = result.shifted(number) or number
    pools = {_parent(expected), result.pairs.get(_parent(number), "")}
    return pools | sibling_parents.get(_parent(number), set())


@lru_cache(maxsize=1 << 16)
def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


@lru_cache(maxsize=1 << 16)
def _parsed(number: str) -> RuleNumber | None:
    """A rule number parsed once per build (an archive repeats the same numbers 80 times)."""
    return try_parse(number)


def _ancestor_at(number: str, depth: int) -> str:
    num = _parsed(number)
    while num is not None and num.depth > depth:
        num = num.parent
    return str(num) if num else ""


@lru_cache(maxsize=1 << 16)
def _parent(number: str) -> str:
    num = _parsed(number)
    parent = num.parent if num else None
    return str(parent) if parent else ""


@lru_cache(maxsize=1 << 16)
def _order(number: str) -> tuple[int, int, int]:
    num = _parsed(number)
    return num.sort_key() if num else (0, 0, 0)
