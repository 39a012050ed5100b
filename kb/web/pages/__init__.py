"""Every page under ``/<locale>/`` and its ``.json`` twin: one module per page family, all on one
blueprint (:data:`bp`), so endpoints stay ``pages.<name>``."""

from __future__ import annotations

from kb.web.pages import (
    cards,
    edition_rules,
    editions,
    examples,
    glossary,
    home,
    play,
    rules,
    search,
    sidebyside,
    texts,
)
from kb.web.pages.base import Page, PageError, bp, swapped_locales

__all__ = [
    "Page",
    "PageError",
    "bp",
    "cards",
    "edition_rules",
    "editions",
    "examples",
    "glossary",
    "home",
    "play",
    "rules",
    "search",
    "sidebyside",
    "swapped_locales",
    "texts",
]
