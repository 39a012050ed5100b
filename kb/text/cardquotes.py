"""Card names quoted in prose: ``[[Card Name]]`` (wiki and chat style), ``《カード名》`` (how Japanese
texts name cards) and ``« Nom de carte »`` (French quotes, which also quote plain words: a caller
checks such a name against the cards before linking it).

Shared by ``/api/linkify`` (which links only names that are cards of the build) and
:mod:`kb.markdown` (which has no cards to check, see there).
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["CardQuote", "find_card_quotes"]

_QUOTED = re.compile(r"\[\[([^\[\]\n]{1,150})\]\]|《([^《》\n]{1,150})》|«\s*([^«»\n]{1,150}?)\s*»")
STYLES = ("brackets", "double angle", "guillemets")


class CardQuote(NamedTuple):
    """A quoted name: ``text[start:end]`` is the whole quote, ``name`` what it quotes, ``style``
    one of :data:`STYLES`; ``label`` is what a link shows (the name without ``[[ ]]``, else
    the quote with its marks, as the text printed it)."""

    start: int
    end: int
    name: str
    style: str
    label: str


def find_card_quotes(text: str) -> list[CardQuote]:
    """Every quoted name in ``text``, left to right."""
    found = []
    for m in _QUOTED.finditer(text):
        group = next(g for g in (1, 2, 3) if m[g] is not None)
        name = m[group].strip()
        if not name:
            continue
        label = name if group == 1 else m[0]
        found.append(CardQuote(m.start(), m.end(), name, STYLES[group - 1], label))
    return found
