"""Bounds on the numbers an example may write, so a typing slip is a syntax error, not a hang.

Every count the example language takes (``library 5``, ``life 20``, ``draw 2``, ``create 3 …
tokens``, ``(2 damage)``, ``turn 3``, ``{4}``, ``choosing mode 2`` …) is read here. A count the
engine repeats one object or event at a time (a library of unknown cards, cards drawn, discarded
or looked at, tokens created) is bounded by :data:`MAX_REPEAT`; every other number by
:data:`MAX_NUMBER`, far above anything a game reaches and far below Python's limit on the digits
of an integer.
"""

from __future__ import annotations

import re

__all__ = ["MAX_NUMBER", "MAX_REPEAT", "NumberTooLarge", "bounded"]

#: The largest life total, damage, counter count, P/T, mana amount, turn number … an example may
#: write.
MAX_NUMBER = 1_000_000
#: The largest count of things made one by one: cards of a ``library N``, cards drawn, discarded
#: or looked at by one instruction, tokens created by one instruction.
MAX_REPEAT = 1_000


_DIGITS = re.compile(r"[+-]?[0-9]+")


class NumberTooLarge(ValueError):
    """A number above the engine's bound; the message names what it counts and the bound."""


def bounded(
    text: str, what: str, limit: int = MAX_NUMBER, error: type[ValueError] = NumberTooLarge
) -> int:
    """``text`` (digits with an optional sign) as an int, or ``error`` naming ``what`` when its
    size is above ``limit``; digits are counted before converting, so a thousand-digit number
    costs nothing."""
    text = text.strip()
    if not _DIGITS.fullmatch(text):  # ASCII digits only: "²" and "٣" are digits to str.isdigit
        raise error(f"{what} is a number, not {text!r}")
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > len(str(limit)) or int(digits) > limit:
        shown = text if len(text) <= 24 else text[:12] + "…" + text[-4:]
        raise error(f"{what} {shown} is too large: at most {limit:,}")
    return int(text)
