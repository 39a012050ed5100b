"""Every page under ``/<locale>/`` and its ``.json`` twin: one module per page family, all on one
blueprint (:data:`bp`), so endpoints stay ``pages.<name>``."""

from __future__ import annotations

from kb.web.pages import cards, editions, examples, glossary, home, rules, search
from kb.web.pages.base import Page, PageError, bp, swapped_locales

__all__ = [
    "Page",
    "PageError",
    "bp",
    "cards",
    "editions",
    "examples",
    "glossary",
    "home",
    "rules",
    "search",
    "swapped_locales",
]
