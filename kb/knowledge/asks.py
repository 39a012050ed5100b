""" "Players ask": questions in players' words and the rules that answer them, as the knowledge
base holds them, and which questions a rule page shows.

A rule page lists the questions citing the rule in the page's language, else in English (a
French reader of a rule no French question cites still sees what players ask about it). Search
indexes every question as a document voting for the rules it cites (:mod:`kb.search.asks`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

#: Most questions a rule page lists (the JSON twin too): the rest are a search away.
MAX_PAGE_ASKS = 8


@dataclass(slots=True)
class Ask:
    """One question of ``corpus/asks``: its words, language and the canonical rules citing it."""

    id: str  # "en/117#3": language, file and place in the file
    lang: str
    q: str
    rules: list[str] = field(default_factory=list)
    source: str = ""
    line: int = 0


def asks_by_rule(asks: Iterable[Ask]) -> dict[tuple[str, str], list[int]]:
    """The positions of the questions, in order, by (cited rule, language)."""
    out: dict[tuple[str, str], list[int]] = {}
    for i, ask in enumerate(asks):
        for rule in ask.rules:
            out.setdefault((rule, ask.lang), []).append(i)
    return out


def page_asks(
    asks: Sequence[Ask], index: dict[tuple[str, str], list[int]], canonical: str, lang: str
) -> tuple[str, list[Ask], int]:
    """The language shown, the first :data:`MAX_PAGE_ASKS` questions citing ``canonical`` in
    ``lang`` (else in English) and how many more there are."""
    for code in dict.fromkeys((lang, "en")):
        at = index.get((canonical, code))
        if at:
            return code, [asks[i] for i in at[:MAX_PAGE_ASKS]], max(0, len(at) - MAX_PAGE_ASKS)
    return lang, [], 0


def ask_json(ask: Ask) -> dict[str, object]:
    """A question as the JSON twin of a page gives it."""
    return {"id": ask.id, "lang": ask.lang, "q": ask.q, "rules": list(ask.rules)}
