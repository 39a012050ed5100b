"""Which two editions can be compared: two different editions of one language (a rule number
means nothing across languages). The web's changes page and ``kb concordance`` both ask here,
each saying the refusal in its own words (the web translates it)."""

from __future__ import annotations

from kb.model import Edition


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
    from kb.web.i18n import language_name

    return language_name(code, "en")
