"""Which two editions can be compared: two different editions of one language (a rule number
means nothing across languages). The web's changes page and ``kb concordance`` both ask here,
each saying the refusal in its own words (the web translates it). Both also ask here which
changes an excerpt edition cannot tell (:func:`split_excerpt`)."""

from __future__ import annotations

from collections.abc import Iterable

from kb.knowledge.model import Change, Edition
from kb.text.normal import LANGUAGE_IN


class IncomparableEditions(ValueError):
    """Two editions that cannot be compared; ``reason`` is ``"languages"`` or ``"same"``."""

    def __init__(self, reason: str, old: Edition, new: Edition) -> None:
        self.reason, self.old, self.new = reason, old, new
        if reason == "languages":
            message = (
                f"compare two editions of one language: {old.id} is {_english_name(old.lang)}, "
                f"{new.id} is {_english_name(new.lang)}"
            )
        else:
            message = f"choose two different editions to compare (both are {old.id})"
        super().__init__(message)


def check_comparable(old: Edition, new: Edition) -> None:
    """Nothing if ``old`` and ``new`` can be compared, else :class:`IncomparableEditions`."""
    if old.lang != new.lang:
        raise IncomparableEditions("languages", old, new)
    if old.id == new.id:
        raise IncomparableEditions("same", old, new)


def _english_name(code: str) -> str:
    return LANGUAGE_IN["en"].get(code, code)


def excerpt_sides(old: Edition, new: Edition) -> tuple[str, ...]:
    """Which sides of a comparison hold excerpts only (``"from"``, ``"to"``): a wiki page quoting
    14 rules, set against a full edition, neither created nor deleted the 3,000 others."""
    return tuple(side for side, ed in (("from", old), ("to", new)) if ed.kind == "partial")


def split_excerpt(
    old: Edition, new: Edition, changes: Iterable[Change]
) -> tuple[list[Change], list[Change]]:
    """The changes both sides could hold, and apart those an excerpt cannot tell: the rules it
    does not quote ("created" when ``old`` is an excerpt, "deleted" when ``new`` is)."""
    sides = excerpt_sides(old, new)
    apart_kinds = {k for side, k in (("from", "created"), ("to", "deleted")) if side in sides}
    kept: list[Change] = []
    apart: list[Change] = []
    for change in changes:
        (apart if change.change in apart_kinds else kept).append(change)
    return kept, apart
