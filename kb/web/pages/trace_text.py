"""The engine trace's fixed phrases in the reader's language.

The priority engine (kb.engine, another layer) writes its trace in English, one sentence per
event, from a small set of phrases with names in them ("Alice receives priority (after a
resolution)", "Bob passes", "Grizzly Bears resolves"). A French or Japanese example page showed
them in English. Each phrase is matched here whole and its msgid goes through Babel like any
interface text; the names (players, cards) are kept as written. An event no phrase matches stays
English, and the page marks it ``lang="en"``.
"""

from __future__ import annotations

import re
from typing import Any

from kb.web.i18n import text as _

__all__ = ["local_step"]

#: What each slot of a phrase matches: a player's name, a card's name (capitalised words, with
#: the small words card names hold), a number. A sentence with more in it matches no phrase.
_WORD = r"[A-Z0-9][\w'’,-]*"
_SLOTS = {
    "player": _WORD,
    "card": rf"{_WORD}(?: (?:of|the|and|to|a|an|in|from|{_WORD}))*",
    "amount": r"\d+",
    "total": r"-?\d+",
}
_SLOTS["source"] = _SLOTS["card"]


def _pattern(source: str) -> re.Pattern[str]:
    """A phrase as a regex: ``{player}`` and the like match a name."""
    out = re.escape(source)
    for name, slot in _SLOTS.items():
        out = out.replace(re.escape("{" + name + "}"), f"(?P<{name}>{slot})")
    return re.compile(rf"^{out}$")


#: (phrase as the engine writes it, the message shown): the commonest events of the examples.
PHRASES: list[tuple[re.Pattern[str], Any]] = [
    (_pattern("{player} receives priority"), lambda m: _("%(player)s receives priority", **m)),
    (
        _pattern("{player} receives priority (start of step)"),
        lambda m: _("%(player)s receives priority (start of step)", **m),
    ),
    (
        _pattern("{player} receives priority (next in turn order)"),
        lambda m: _("%(player)s receives priority (next in turn order)", **m),
    ),
    (
        _pattern("{player} receives priority (after a resolution)"),
        lambda m: _("%(player)s receives priority (after a resolution)", **m),
    ),
    (_pattern("{player} passes"), lambda m: _("%(player)s passes", **m)),
    (_pattern("{card} resolves"), lambda m: _("%(card)s resolves", **m)),
    (_pattern("{player} casts {card}"), lambda m: _("%(player)s casts %(card)s", **m)),
    (
        _pattern("{card} enters the battlefield under {player}'s control"),
        lambda m: _("%(card)s enters the battlefield under %(player)s’s control", **m),
    ),
    (
        _pattern("{source}'s triggered ability is put on the stack"),
        lambda m: _("%(source)s’s triggered ability is put on the stack", **m),
    ),
    (
        _pattern("{player} gains {amount} life ({total})"),
        lambda m: _("%(player)s gains %(amount)s life (%(total)s)", **m),
    ),
]


def local_step(text: str, locale: str) -> tuple[str, str]:
    """A trace event's text in ``locale`` where a phrase matches it: (text, its language)."""
    if locale == "en":
        return text, "en"
    for pattern, message in PHRASES:
        found = pattern.match(text)
        if found:
            return message(found.groupdict()).local(locale), locale
    return text, "en"
