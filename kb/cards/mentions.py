"""Card names in the rules' own texts, for links from rule pages and glossary entries to cards.

Which names count, by language, so that ordinary words are never taken for cards:

* English: a run of two or more capitalised words that is exactly a card's English name
  ("Example: Circling Vultures has…"), unless that name is also a glossary term, an alias or
  a rule's title, or begins one ("Two-Headed Giant" is a card, and the rules' "Two-Headed Giant
  Variant": the rules mean the variant);
* Japanese: a name in 《…》 that is exactly one of a card's names;
* French: a name in « … » that is exactly one of a card's names (French quotes also quote
  plain words, « incolore », which are no card's name).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

__all__ = ["find_card_names"]

_TOKEN = re.compile(r"[A-Za-z0-9][\w'’\-]*(?:,)?")
_SMALL = frozenset({"of", "the", "a", "an", "to", "and", "in", "on", "for", "from", "with"})
_JA = re.compile(r"《([^《》\n]{1,80})》")
_FR = re.compile(r"«\s*([^«»\n]{1,80}?)\s*»")
_MAX_WORDS = 8


def find_card_names(
    text: str,
    lang: str,
    names: dict[str, int],
    fold: Callable[[str], str],
    excluded: Iterable[str] = (),
) -> list[tuple[int, int, int]]:
    """``(start, end, card)`` of each card name in ``text`` (see the module docstring);
    ``names`` maps folded names (English ones of two words or more for English texts) to card
    ids; ``excluded`` are folded names never taken for cards, nor what begins them (glossary
    terms, rule titles)."""
    skip = set(excluded)
    if lang == "ja" or lang == "fr":
        pattern = _JA if lang == "ja" else _FR
        out = []
        for m in pattern.finditer(text):
            card = names.get(fold(m[1]))
            if card is not None and fold(m[1]) not in skip:
                out.append((m.start(1), m.end(1), card))
        return out
    tokens = list(_TOKEN.finditer(text))
    out = []
    i = 0
    while i < len(tokens):
        first = tokens[i][0]
        if not first[0].isupper():
            i += 1
            continue
        found = None
        for j in range(min(len(tokens), i + _MAX_WORDS) - 1, i, -1):
            words = [t[0].rstrip(",") for t in tokens[i : j + 1]]
            if not all(w[0].isupper() or w in _SMALL for w in words) or words[-1] in _SMALL:
                continue
            start, end = tokens[i].start(), tokens[j].end()
            if text[end - 1] == ",":
                end -= 1
            key = fold(text[start:end])
            card = names.get(key)
            if card is not None and not _excluded(key, skip):
                found = (start, end, card, j)
                break
        if found:
            out.append(found[:3])
            i = found[3] + 1
        else:
            i += 1
    return out


def _excluded(key: str, skip: set[str]) -> bool:
    """A name the rules use for something else: a glossary term or a rule's title, or the
    start of one ("Two-Headed Giant" of "Two-Headed Giant Variant")."""
    return key in skip or any(term.startswith(key + " ") for term in skip)
