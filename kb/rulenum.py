"""Rule numbers of the Comprehensive Rules: parsing, ordering and ancestry.

A rule number is one of: a section (``1.``-``9.``), a rule (``117.``), a subrule (``117.1.``) or a
lettered subrule (``117.1a``). Numbers sort numerically (``702.2`` before ``702.19``) and subrule
letters skip ``l`` and ``o`` in the published texts, although we still accept them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import total_ordering

from kb.text import nfkc

__all__ = ["LETTERS", "RuleNumber", "RuleNumberError", "parse", "try_parse"]

#: Subrule letters in the order the rules use them (no "l", no "o").
LETTERS = "abcdefghijkmnpqrstuvwxyz"

_NUMBER = re.compile(
    r"""^\s*(?:(?:rules?|r[eè]gles?|r)\s*\.?\s*)?   # optional "rule", "règle" or "r" prefix
        (?P<major>\d{1,3})
        (?:\.\s*(?P<minor>\d{1,3})?)?            # ".1" or a bare trailing "."
        \s*(?P<letter>[a-z])?                     # "a" (also "117.3 b")
        \.?\s*$""",
    re.IGNORECASE | re.VERBOSE,
)
_ANCHOR = re.compile(r"^#?R(?P<major>\d{3})(?P<minor>\d{0,3})(?P<letter>[a-z]?)$", re.IGNORECASE)


class RuleNumberError(ValueError):
    """A text that is not a rule number."""


@total_ordering
@dataclass(frozen=True, slots=True)
class RuleNumber:
    """A parsed rule number: ``major`` (1-9 or 100-999), optional ``minor`` and ``letter``."""

    major: int
    minor: int | None = None
    letter: str | None = None

    @property
    def is_section(self) -> bool:
        """True for the nine section headings ``1.``-``9.``."""
        return self.major < 10

    @property
    def depth(self) -> int:
        """0 for a section, 1 for a rule, 2 for a subrule, 3 for a lettered subrule."""
        if self.is_section:
            return 0
        if self.minor is None:
            return 1
        return 2 if self.letter is None else 3

    @property
    def section(self) -> int:
        """The section (1-9) the number belongs to."""
        return self.major if self.is_section else self.major // 100

    @property
    def parent(self) -> RuleNumber | None:
        """The number one level up (``117.1a`` -> ``117.1`` -> ``117`` -> ``1``)."""
        if self.letter is not None:
            return RuleNumber(self.major, self.minor)
        if self.minor is not None:
            return RuleNumber(self.major)
        if not self.is_section:
            return RuleNumber(self.major // 100)
        return None

    def ancestors(self) -> list[RuleNumber]:
        """Every number above this one, nearest first."""
        out: list[RuleNumber] = []
        node = self.parent
        while node is not None:
            out.append(node)
            node = node.parent
        return out

    def sort_key(self) -> tuple[int, int, int]:
        """Numeric ordering key: sections sort before their own rules."""
        major = self.major * 100 if self.is_section else self.major
        minor = -1 if self.minor is None else self.minor
        # Alphabetical order is the rules' order: skipping "l" and "o" changes no comparison.
        letter = -1 if self.letter is None else ord(self.letter) - ord("a")
        return (major, minor, letter)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, RuleNumber):
            return NotImplemented
        return self.sort_key() < other.sort_key()

    def __str__(self) -> str:
        """The short form used as a key: ``1``, ``117``, ``117.1``, ``117.1a``."""
        text = str(self.major)
        if self.minor is not None:
            text += f".{self.minor}"
            if self.letter:
                text += self.letter
        return text

    @property
    def display(self) -> str:
        """The form the rules print: ``1.``, ``117.``, ``117.1.``, ``117.1a``."""
        return str(self) if self.letter else f"{self}."

    @property
    def anchor(self) -> str:
        """An HTML id without dots, as Yawgatog's pages use: ``R1173a``."""
        return "R" + str(self).replace(".", "")

    def is_ancestor_of(self, other: RuleNumber) -> bool:
        """True if ``other`` lies in this number's subtree (and is not this number)."""
        return self in other.ancestors()


def normalize(text: str) -> str:
    """NFKC-fold a user-typed number (full-width ``１１７．３ａ`` becomes ``117.3a``)."""
    return nfkc(text).strip().lower()


def parse(text: str) -> RuleNumber:
    """Parse a rule number in any common spelling, or raise :class:`RuleNumberError`."""
    raw = normalize(text)
    match = _NUMBER.match(raw) or _ANCHOR.match(raw)
    if not match:
        raise RuleNumberError(f"not a rule number: {text!r}")
    major = int(match["major"])
    minor = int(match["minor"]) if match["minor"] else None
    letter = match["letter"] or None
    if not (1 <= major <= 9 or 100 <= major <= 999):
        raise RuleNumberError(f"not a rule number: {text!r} (sections are 1-9, rules 100-999)")
    if major < 10 and (minor is not None or letter):
        raise RuleNumberError(f"not a rule number: {text!r} (a section has no subrules)")
    if letter and minor is None:
        raise RuleNumberError(f"not a rule number: {text!r} (a letter needs a subrule number)")
    return RuleNumber(major, minor, letter)


def try_parse(text: str) -> RuleNumber | None:
    """Like :func:`parse` but returns None for a text that is not a rule number."""
    try:
        return parse(text)
    except RuleNumberError:
        return None
