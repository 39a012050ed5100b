"""Card pages (only in a build made with ``kb build --cards``): one page per card in each locale,
and an index that finds cards by name in any of the three languages.

A card page shows the Oracle text with its mana symbols, the printed name and text in the page's
language where the card file knows them, the dated rulings, the rules the card uses (grouped by
why, linked to the rule pages in the reader's language) and the executable examples whose game
blocks name it. A name that is not a card's URL name (``/fr/cards/Foudre``, a misspelling)
redirects to the card it resolves to; a name that resolves to none is a 404 with suggestions.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Response, redirect, request
from markupsafe import Markup, escape

from kb.cards.serialise import card_json
from kb.knowledge.model import KnowledgeBase
from kb.store.cards import CardRow, CardStore
from kb.web.i18n import text as _
from kb.web.pages.base import Page, PageError, suffix, twin
from kb.web.pages.common import rule_url
from kb.web.resources import get_kb
from kb.web.urls import url_for

_SYMBOL = re.compile(r"\{([^{}\s]{1,8})\}")
#: Cards listed by the index for one query.
INDEX_LIMIT = 50


def why_title(why: str) -> Any:
    """The heading of a reason a card uses rules (written out for the catalog's extraction)."""
    titles = {
        "layout": _("Layout"),
        "keyword": _("Keywords"),
        "action": _("Keyword actions"),
        "supertype": _("Supertypes"),
        "type": _("Card types"),
        "subtype": _("Subtypes"),
        "ability word": _("Ability words"),
        "term": _("Glossary terms"),
    }
    return titles.get(why) or _("Other rules")


def mana_html(text: str) -> Markup:
    """Text with its ``{W}``, ``{2}``, ``{T}`` symbols as labelled spans (escaped otherwise)."""
    out: list[str] = []
    at = 0
    for match in _SYMBOL.finditer(text):
        out.append(str(escape(text[at : match.start()])))
        symbol = match[1].upper()
        css = re.sub(r"[^a-z0-9]", "", symbol.lower()) or "x"
        out.append(
            f'<abbr class="mana mana-{css}" title="{{{escape(symbol)}}}">{escape(symbol)}</abbr>'
        )
        at = match.end()
    out.append(str(escape(text[at:])))
    return Markup("".join(out).replace("\n", "<br>"))


def card_url(locale: str, slug: str) -> str:
    """The page of a card."""
    return url_for("pages.card", locale=locale, name=slug)


#: Prefix of the keys of card names among a text's glossary-term spans (see :func:`card_terms`).
CARD_KEY = "card:"


def card_terms(kb: KnowledgeBase, edition: str, kind: str, key: str) -> list[tuple[str, int, int]]:
    """The card names of one text of the rules (kind ``rule``, ``example`` or ``glossary``) as
    spans for :func:`kb.web.render.rule_html`'s terms, keyed ``card:<slug>`` (no cards: none)."""
    store = CardStore.of(kb)
    if store is None:
        return []
    return [(CARD_KEY + slug, a, b) for a, b, slug in store.spans(edition).get((kind, key), [])]


def card_href(locale: str, key: str) -> str | None:
    """The card page of a ``card:<slug>`` span key (None: a glossary term's key)."""
    return card_url(locale, key[len(CARD_KEY) :]) if key.startswith(CARD_KEY) else None


def cards_of(kb: KnowledgeBase) -> CardStore:
    """The build's cards; 404 when the build has none."""
    store = CardStore.of(kb)
    if store is None:
        raise PageError(404, _("No cards in this build: run “kb build --cards PATH” to add them."))
    return store


def _rule_label(kb: KnowledgeBase, locale: str, number: str, label: str) -> str:
    """A rule's name in the reader's language where its text gives one, else the English name."""
    if locale == "en":
        return label
    rule = kb.current(number, locale)
    return rule.title if rule is not None and rule.title else label


def card_page(kb: KnowledgeBase, locale: str, store: CardStore, row: CardRow) -> Page:
    """One card for a reader of ``locale``."""
    data = card_json(row.card, row.uses, locale, row.slug)
    for face in data["faces"]:
        face["mana_html"] = mana_html(face["mana_cost"])
        face["html"] = mana_html(face["text"])
        if face["printed"]:
            face["printed"]["html"] = mana_html(face["printed"]["text"])
    for group in data["rules_by_why"]:
        group["title"] = why_title(group["why"]).local(locale)
        for rule in group["rules"]:
            rule["url"] = rule_url(locale, rule["number"])
            rule["label"] = _rule_label(kb, locale, rule["number"], rule["label"])
    for rule in data["rules"]:
        rule["url"] = rule_url(locale, rule["number"])
    data["examples"] = [
        {"id": i, "title": t, "url": url_for("pages.example", locale=locale, example_id=i)}
        for i, t in store.examples(row.id)
    ]
    data["url"] = card_url(locale, row.slug)
    page_data = {"card": data}
    return Page(
        "pages/card.html",
        page_data,
        alternates={loc: card_url(loc, row.slug) for loc in ("en", "fr", "ja")},
        json={"card": {k: v for k, v in data.items() if k != "faces"} | {"faces": _plain(data)}},
    )


def _plain(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The faces without their HTML (the JSON twin gives the texts as the card file does)."""
    faces = []
    for face in data["faces"]:
        plain = {k: v for k, v in face.items() if k not in ("html", "mana_html")}
        if plain.get("printed"):
            plain["printed"] = {k: v for k, v in plain["printed"].items() if k != "html"}
        faces.append(plain)
    return faces


def card_index_page(locale: str, store: CardStore, query: str) -> Page:
    """The card index: the cards a name finds (any language, partial or misspelt), or a form."""
    hits: list[dict[str, Any]] = []
    if query:
        found = store.resolve(query, limit=INDEX_LIMIT)
        names = store.summaries([i for i, _, _, _ in found])
        for card_id, lang, name, how in found:
            slug, oracle = names.get(card_id, ("", name))
            if slug:
                hits.append(
                    {
                        "name": oracle,
                        "matched": name,
                        "lang": lang,
                        "how": how,
                        "url": card_url(locale, slug),
                    }
                )
    return Page(
        "pages/card_index.html",
        {"query": query, "cards": hits, "count": store.count},
    )


# ---- routes ---
@twin("/<locale:locale>/cards/", "cards")
def cards(locale: str, fmt: str = "html") -> Page:
    """The card index (``?q=`` a name in any language)."""
    query = request.args.get("q", "").strip()
    if len(query) > 200:
        raise PageError(400, _("A card name is at most 200 characters."))
    return card_index_page(locale, cards_of(get_kb()), query)


@twin("/<locale:locale>/cards/<name>", "card")
def card(locale: str, name: str, fmt: str = "html") -> Page | Response:
    """One card by its URL name; another name of it redirects there."""
    kb = get_kb()
    store = cards_of(kb)
    row = store.by_slug(name) if len(name) <= 200 else None
    if row is not None:
        return card_page(kb, locale, store, row)
    found = store.resolve(name, limit=5) if len(name) <= 200 else []
    if found and found[0][3] == "exact":
        slug = store.slug_of(found[0][0])
        if slug:
            return redirect(suffix(card_url(locale, slug), fmt), 301)
    names = store.summaries([i for i, _, _, _ in found])
    raise PageError(
        404,
        _("No card “%(name)s”.", name=name[:60]),
        suggestions=[
            {"term": names[i][1], "url": card_url(locale, names[i][0])}
            for i, _, _, _ in found
            if i in names
        ],
    )
