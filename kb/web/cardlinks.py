"""Card names quoted in a text (``[[Card Name]]``, ``《カード名》``, ``« Nom de carte »``) linked to
the card pages of a build with cards, for ``/api/linkify``.

A name in ``[[ ]]`` or ``《 》`` is meant as a card's: it is resolved as the card index resolves
names (any language, a misspelling of a letter or two). French quotes also quote plain words
(« incolore »), so a name in them links only when it is exactly a card's name. Each link carries
the card's type line and the start of its text as its ``title`` (the browser's hover preview).
"""

from __future__ import annotations

import html
from typing import Any

from markupsafe import escape

from kb.knowledge.model import KnowledgeBase
from kb.store.cards import CardStore
from kb.text.cardquotes import find_card_quotes
from kb.web.urls import url_for

__all__ = ["link_cards"]

PREVIEW_CHARS = 200


def link_cards(
    kb: KnowledgeBase, rendered: str, lang: str, base: str
) -> tuple[str, list[dict[str, Any]]]:
    """``rendered`` (escaped HTML with the rule links) with its quoted card names linked, and a
    list of the cards linked: label, name, slug, url, start and end in ``rendered``."""
    store = CardStore.of(kb)
    if store is None:
        return rendered, []
    out: list[str] = []
    cards: list[dict[str, Any]] = []
    at = 0
    for quote in find_card_quotes(rendered):
        if "<" in rendered[quote.start : quote.end]:
            continue  # a rule link inside the quotes: left as it is
        name = html.unescape(quote.name)
        if quote.style == "guillemets":
            from kb.cards.names import fold

            exact = store.ids_by_key(fold(name))
            card_id = exact[0][0] if exact else None
        else:
            found = store.resolve(name, limit=1)
            card_id = found[0][0] if found else None
        row = store.by_id(card_id) if card_id is not None else None
        if row is None:
            continue
        url = base + url_for("pages.card", locale=lang, name=row.slug)
        preview = f"{row.card.type_line} — {row.card.text}"
        if len(preview) > PREVIEW_CHARS:
            preview = preview[: PREVIEW_CHARS - 1] + "…"
        out.append(rendered[at : quote.start])
        out.append(
            f'<a class="card" href="{escape(url)}" data-card="{escape(row.slug)}" '
            f'title="{escape(preview)}">{quote.label}</a>'
        )
        at = quote.end
        cards.append(
            {
                "label": html.unescape(quote.label),
                "name": row.card.name,
                "slug": row.slug,
                "url": url,
            }
        )
    out.append(rendered[at:])
    return "".join(out), cards
