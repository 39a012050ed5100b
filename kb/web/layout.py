"""The layout of ``base.html`` around a page whose blocks Python writes (:attr:`Page.written
<kb.web.pages.base.Page.written>`), filled in without Jinja.

Around a rule page, the layout's structure never changes: a card, a JSON twin, the same three
languages. Only a dozen values do (title, content, the card's fields, the twin's and the
alternates' URLs). So the layout is rendered by Jinja once per interface language (and app and
script root) with a marker in place of each value, and kept as a format string: each page then
fills in its values escaped as the template escapes them. Any page whose structure differs
(no card, other alternates) is rendered by the template as before; the equality of the two is
tested with the rule pages (``tests/web/test_rule_body.py``).
"""

from __future__ import annotations

import re
from typing import Any

from flask import g, render_template
from markupsafe import Markup

from kb.web import embed
from kb.web.i18n import LOCALES
from kb.web.pages.base import WRITTEN
from kb.web.render import esc
from kb.web.urls import scope

#: The values of the layout, each written in it as ``kbSlot<name>x`` while it is made.
_SLOTS = (
    "title",
    "content",
    "json_url",
    "card_title",
    "card_description",
    "card_url",
    "card_site",
    "oembed_url",
    *(f"alternate_{loc}" for loc in LOCALES),
)
_MARK = re.compile("kbSlot(" + "|".join(_SLOTS) + ")x")
#: (app id, script root, locale) -> the layout as a format string (None: not made so).
_LAYOUTS: dict[tuple[int, str, str], str | None] = {}


def page(title: Markup, content: Markup, alternates: dict[str, str], json_url: str) -> str:
    """The whole page: ``base.html`` with these blocks and values, as ``pages/_written.html``
    renders it (which it does when the layout cannot be filled in)."""
    extra = embed.unfurl_context()
    card = extra.get("unfurl")
    oembed_url = extra.get("oembed_url")
    locale = g.locale
    layout = None
    if card is not None and oembed_url and json_url and tuple(alternates) == LOCALES:
        key = (*scope(), locale)  # type: ignore[misc]
        layout = _LAYOUTS.get(key, False)
        if layout is False:
            layout = _LAYOUTS[key] = _make(card)
    if layout is None:
        return render_template(
            WRITTEN, alternates=alternates, json_url=json_url, title=title, content=content
        )
    return layout.format(
        title=title,
        content=content,
        json_url=esc(json_url),
        card_title=esc(card.title),
        card_description=esc(card.description),
        card_url=esc(card.url),
        card_site=esc(card.site),
        oembed_url=esc(oembed_url),
        **{f"alternate_{loc}": esc(alternates[loc]) for loc in LOCALES},
    )


def _make(card: Any) -> str | None:
    """The layout of this request's locale as a format string, from ``pages/_written.html``
    rendered with markers for values (None when a marker does not come out as written)."""
    mark = {name: f"kbSlot{name}x" for name in _SLOTS}
    fake = type(card)(
        kind=card.kind,
        locale=card.locale,
        lang=card.lang,
        title=mark["card_title"],
        description=mark["card_description"],
        url=mark["card_url"],
        site=mark["card_site"],
        number=card.number,
    )
    html = render_template(
        WRITTEN,
        alternates={loc: mark[f"alternate_{loc}"] for loc in LOCALES},
        json_url=mark["json_url"],
        title=Markup(mark["title"]),
        content=Markup(mark["content"]),
        unfurl=fake,
        oembed_url=mark["oembed_url"],
    )
    if {m.group(1) for m in _MARK.finditer(html)} != set(_SLOTS):
        return None
    escaped = html.replace("{", "{{").replace("}", "}}")
    return _MARK.sub(lambda m: "{" + m.group(1) + "}", escaped)
