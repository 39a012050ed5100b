"""Unfurls: what a link to a page shows where it is pasted (chat, forum, another site's hover).

One function, :func:`unfurl`, reads a page's URL path and gives its card: title with the rule
number, the rule text in the page's language, the canonical URL. A context processor hands it to
``templates/base.html`` (Open Graph and Twitter card tags, oEmbed discovery) and
``GET /api/oembed`` serves it as oEmbed JSON, which the embeddable hover script
(``static/kb-embed.js``) also reads. The page views are untouched: the card is computed from the
path, as a chat client's crawler sees it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import parse_qsl, quote_plus, unquote, urlsplit

from flask import (
    Blueprint,
    Response,
    current_app,
    g,
    has_request_context,
    jsonify,
    render_template,
    request,
)
from markupsafe import escape
from werkzeug.datastructures import MultiDict
from werkzeug.exceptions import HTTPException

from kb.base.cachemap import keep
from kb.knowledge import lookup
from kb.knowledge.model import LANGS, KnowledgeBase, Rule
from kb.web import i18n
from kb.web.i18n import text as _
from kb.web.pages.base import PageError
from kb.web.pages.common import (
    current_for_old,
    edition_label,
    glossary_url,
    parse_number,
    short,
)
from kb.web.pages.history import edition_labels
from kb.web.pages.home import title_for
from kb.web.resources import get_kb
from kb.web.urls import per_request, url_for

bp = Blueprint("embed", __name__)
log = logging.getLogger(__name__)

#: Characters of text in a card's description (chat clients cut near 300).
DESCRIPTION_CHARS = 300
#: oEmbed "rich" cards: the default width and the bounds a consumer may ask within.
OEMBED_WIDTH, OEMBED_MIN_WIDTH, OEMBED_MAX_WIDTH = 500, 200, 1000
#: Characters werkzeug leaves as they are in a query value it builds.
QUERY_SAFE = "!$'()*,/:;?@"
#: og:locale of each interface language.
OG_LOCALES = {"en": "en_US", "fr": "fr_FR", "ja": "ja_JP"}


@dataclass(frozen=True, slots=True)
class Unfurl:
    """A page's card: what Open Graph, Twitter cards, oEmbed and the hover script show."""

    kind: str  # "rule" | "glossary" | "changes" | "example"
    locale: str  # the page's interface language
    lang: str  # the language of ``description`` (a rule not translated is shown in English)
    title: str
    description: str
    url: str  # canonical, absolute
    site: str
    number: str | None = None  # the rule's canonical number (or its number in a pinned edition)

    def as_dict(self) -> dict[str, Any]:
        """The card as JSON-ready data."""
        return asdict(self)


def public_base() -> str:
    """The site's absolute root without the final slash: ``PUBLIC_URL`` when configured (a
    server behind a proxy), else the URL this request came to."""
    configured = current_app.config.get("PUBLIC_URL")
    if configured:
        return str(configured).rstrip("/")
    if not has_request_context():
        return str(request.host_url).rstrip("/")  # raises as it always did
    memo = per_request()  # werkzeug computes host_url afresh on every read
    found = memo.get("public_base")
    if found is None:
        # Werkzeug's host URL (scheme, Host header, IRI decoding) is the same for every
        # request to the same host: kept per (scheme, host), a bounded few (hosts are the
        # client's to choose).
        key = (request.scheme, request.host)
        found = _HOST_URLS.get(key)
        if found is None:
            found = request.host_url.rstrip("/")
            keep(_HOST_URLS, key, found, HOST_URLS)
        memo["public_base"] = found
    return found  # type: ignore[no-any-return]


#: (scheme, Host) -> the public base werkzeug gives for them; at most HOST_URLS of them.
_HOST_URLS: dict[tuple[str, str], str] = {}
HOST_URLS = 64


def unfurl(path: str, args: MultiDict[str, str] | None = None) -> Unfurl | None:
    """The card of the page at ``path`` (query ``args``), or None when the path names no rule,
    glossary entry, edition comparison or example page of this knowledge base.

    Old numbers, aliases and permalinks (``/r/117.3b?lang=fr``) give the card of the page they
    lead to, with that page's canonical URL.
    """
    args = args if args is not None else MultiDict()
    try:
        endpoint, values = current_app.url_map.bind("localhost").match(path, method="GET")
    except HTTPException:
        return None
    return _card(str(endpoint), values, args)


def _card(endpoint: str, values: dict[str, Any], args: MultiDict[str, str]) -> Unfurl | None:
    """:func:`unfurl` of a matched URL: its endpoint and its values."""
    endpoint = endpoint.removesuffix("_json")
    kb = get_kb()
    try:
        if endpoint in ("pages.rule", "links.permalink"):
            locale = values.get("locale") or args.get("lang", "en")
            if locale not in LANGS:
                locale = "en"
            number = str(values["number"]).removesuffix(".json")
            num = parse_number(number)
            if num is not None and args.get("edition"):
                # An old number of a named edition: the rule it became (or that edition's page).
                ed, old = current_for_old(kb, args["edition"], locale, str(num))
                if old.canonical is None:
                    return _rule_card(kb, locale, str(num), ed.id)
                number = old.canonical
            return _rule_card(kb, locale, number, None)
        if endpoint == "pages.rule_pinned":
            return _rule_card(kb, values["locale"], values["number"], values["edition"])
        if endpoint == "pages.glossary_entry":
            return _glossary_card(kb, values["locale"], values["key"])
        if endpoint == "pages.changes":
            return _changes_card(kb, values["locale"], values["span"])
        if endpoint == "pages.example":
            return _example_card(kb, values["locale"], values["example_id"])
    except PageError:  # an unknown edition: no such page, so no card
        return None
    return None


def _site(locale: str) -> str:
    return i18n.translations(locale).ugettext("MTG Rules")


def _rule_card(kb: KnowledgeBase, locale: str, number: str, edition: str | None) -> Unfurl | None:
    num = parse_number(number)
    if num is None:
        return None
    key = str(num)
    if edition:
        ed = lookup.resolve_edition(kb, edition, locale)
        rule = kb.rule(ed.id, key) if ed else None
        if ed is None or rule is None:
            return None
        shown = key
        label = edition_labels(kb, locale)[ed.id][2]  # edition_label(ed, locale), kept
        title = f"{_('Rule %(number)s', number=key).local(locale)} · {label}"
        url = url_for("pages.rule_pinned", locale=locale, edition=ed.id, number=key)
    else:
        shown = lookup.canonical_for(kb, locale, key) or key
        found = lookup.lookup_rule(kb, locale, shown)
        if found is None:
            return None
        rule = found[0]
        title = _("Rule %(number)s", number=shown).local(locale)
        heading, _lang = title_for(kb, rule, locale)
        if rule.title:
            title = f"{title} · {heading}"
        url = url_for("pages.rule", locale=locale, number=shown)
    return Unfurl(
        kind="rule",
        locale=locale,
        lang=rule.lang,
        title=title,
        description=_rule_text(kb, rule),
        url=public_base() + url,
        site=_site(locale),
        number=shown,
    )


def _rule_text(kb: KnowledgeBase, rule: Rule) -> str:
    """A rule's text for a card. A heading says what it holds: a section lists its rules'
    titles ("700 General · 701 Keyword Actions"), a titled rule goes on with its first subrule."""
    title = (rule.title or "").strip()
    text = (
        _squeezed(rule.text, DESCRIPTION_CHARS)
        if len(title) <= DESCRIPTION_CHARS
        else " ".join(rule.text.split())
    )
    if not text or text == title:
        kids = [k for k in (kb.rule(rule.edition, n) for n in rule.children[:12]) if k is not None]
        if kids and all(k.title for k in kids):
            text = " · ".join(f"{k.number} {k.title}" for k in kids)
        elif kids:
            text = f"{kids[0].number} {' '.join(kids[0].text.split())}"
        else:
            text = rule.title or ""
    return short(text, DESCRIPTION_CHARS)


def _squeezed(text: str, limit: int) -> str:
    """``" ".join(text.split())``, or enough of its start for :func:`short` to cut at ``limit``
    the same way: a long text's whitespace is squeezed only as far as the card shows it.

    The squeezed start of a text is the start of the squeezed text; once it is longer than
    ``limit``, the rest changes neither the cut nor a comparison with a text of at most
    ``limit`` characters (a title)."""
    if len(text) > 2 * limit:
        start = " ".join(text[: 2 * limit].split())
        if len(start) > limit + 1:
            return start
    return " ".join(text.split())


def _glossary_card(kb: KnowledgeBase, locale: str, key: str) -> Unfurl | None:
    entry = lookup.find_glossary(kb, locale, key) if len(key) <= 200 else None
    if entry is None:
        return None
    return Unfurl(
        kind="glossary",
        locale=locale,
        lang=entry.lang,
        title=_("%(term)s (glossary)", term=entry.term).local(locale),
        description=short(" ".join(entry.definition.split()), DESCRIPTION_CHARS),
        url=public_base() + glossary_url(kb, locale, entry.key, entry.lang),
        site=_site(locale),
    )


def _changes_card(kb: KnowledgeBase, locale: str, span: str) -> Unfurl | None:
    if span not in kb.changes:
        return None
    old_id, new_id = span.split("..", 1)
    counts = dict.fromkeys(("moved", "edited", "created", "deleted"), 0)
    for change in kb.changes[span]:
        if change.change in counts:
            counts[change.change] += 1
    labels = {
        side: edition_label(kb.editions[ed], locale) if ed in kb.editions else ed
        for side, ed in (("old", old_id), ("new", new_id))
    }
    return Unfurl(
        kind="changes",
        locale=locale,
        lang=locale,
        title=_("Changes: %(old)s → %(new)s", **labels).local(locale),
        description=_(
            "%(moved)s moved, %(edited)s edited, %(created)s created, %(deleted)s deleted rules.",
            **{k: i18n.format_number(v, locale) for k, v in counts.items()},
        ).local(locale),
        url=public_base() + url_for("pages.changes", locale=locale, span=span),
        site=_site(locale),
    )


_MARKUP = re.compile(r"[#*_`>\[\]]|\(https?://[^)]*\)")


def _example_card(kb: KnowledgeBase, locale: str, example_id: str) -> Unfurl | None:
    ex = next((x for x in kb.examples if x.id == example_id), None)
    if ex is None:
        return None
    lang = locale if locale in ex.titles else "en"
    title = ex.titles.get(locale) or ex.title
    prose = ex.prose.get(locale) if locale in ex.prose else ex.markdown
    # The first paragraph that is prose, not the title or the "rules:" line.
    first = ""
    for para in (prose or "").split("\n\n"):
        plain = " ".join(_MARKUP.sub("", para).split())
        if plain and plain != title and not plain.lower().startswith("rules:"):
            first = plain
            break
    rules = _("Rules %(rules)s.", rules=list(ex.rules)).local(locale) if ex.rules else ""
    return Unfurl(
        kind="example",
        locale=locale,
        lang=lang,
        title=_("Example: %(title)s", title=title).local(locale),
        description=short(" ".join(filter(None, (first, rules))), DESCRIPTION_CHARS),
        url=public_base() + url_for("pages.example", locale=locale, example_id=ex.id),
        site=_site(locale),
    )


# ---- templates ---------------------------------------------------------------------------------
@bp.app_context_processor
def unfurl_context() -> dict[str, Any]:
    """``unfurl`` (the card of this page, or None) and ``oembed_url`` for the card tags of base.html."""
    if not has_request_context():
        return {"unfurl": None}
    endpoint = request.endpoint
    if g.get("is_json", False) or endpoint is None:
        return {"unfurl": None}
    memo = per_request()
    found = memo.get("unfurl")
    if found is not None:
        return found  # type: ignore[no-any-return]
    card = None
    if endpoint.startswith("pages."):
        try:
            # This request's own URL: Flask matched it already. The query matters to the
            # current rule's card only (``?edition=``): not parsed for the others.
            args = request.args if endpoint == "pages.rule" else MultiDict()
            card = _card(endpoint, dict(request.view_args or {}), args)
        except Exception:  # a card is an extra: it must never cost the page (or its error page)
            log.exception("no unfurl card for %s", request.path)
    oembed_url = (
        # What url_for("embed.oembed", url=..., format="json") gives (werkzeug encodes query
        # values so, as urlencode does), without matching the URL map for a value that is
        # never the same twice.
        f"{public_base()}{url_for('embed.oembed')}?url="
        f"{quote_plus(card.url, safe=QUERY_SAFE)}&format=json"
        if card is not None
        else None
    )
    found = memo["unfurl"] = {
        "unfurl": card,
        "oembed_url": oembed_url,
        "og_locale": OG_LOCALES.get(g.get("locale", "en"), "en_US"),
    }
    return found


# ---- oEmbed ------------------------------------------------------------------------------------
@bp.get("/api/oembed")
def oembed() -> Response:
    """oEmbed (https://oembed.com) for rule, glossary, comparison and example pages: ``url``
    (required), ``format`` (json only), ``maxwidth``, ``maxheight``."""
    g.is_json = True
    url = request.args.get("url", "")
    fmt = request.args.get("format", "json")
    if fmt != "json":
        raise PageError(501, _("Only format=json is served."), format=fmt[:20])
    if not url:
        raise PageError(400, _("Missing 'url': the address of a page of this site."))
    parts = urlsplit(url[:2048])
    ours = {urlsplit(public_base()).netloc, request.host}
    if parts.scheme not in ("", "http", "https") or (parts.netloc and parts.netloc not in ours):
        raise PageError(
            404,
            _("No rule, glossary entry, comparison or example page at “%(url)s”.", url=url[:200]),
            url=url[:200],
        )
    args = MultiDict(parse_qsl(parts.query, keep_blank_values=True))
    card = unfurl(unquote(parts.path) or "/", args)
    if card is None:
        raise PageError(
            404,
            _("No rule, glossary entry, comparison or example page at “%(url)s”.", url=url[:200]),
            url=url[:200],
        )
    width = _bound(
        request.args.get("maxwidth"), OEMBED_WIDTH, OEMBED_MIN_WIDTH, OEMBED_MAX_WIDTH, "maxwidth"
    )
    # Height: a title line and the text at about 70 characters a line of 22 px, plus margins.
    lines = 1 + -(-len(card.description) * 7 // width)
    height = _bound(request.args.get("maxheight"), 40 + 22 * lines, 60, 2000, "maxheight")
    link = f'<a href="{escape(card.url)}">{escape(card.title)}</a>'
    html = (
        f'<blockquote class="kb-unfurl" cite="{escape(card.url)}" lang="{escape(card.lang)}">'
        f"<p>{link}</p><p>{escape(card.description)}</p></blockquote>"
    )
    return jsonify(
        {
            "version": "1.0",
            "type": "rich",
            "title": card.title,
            "provider_name": card.site,
            "provider_url": public_base() + "/",
            "cache_age": 86400,
            "width": width,
            "height": height,
            "html": html,
            # Beyond the oEmbed fields (allowed by the spec): the card itself.
            "description": card.description,
            "url": card.url,
            "kind": card.kind,
            "number": card.number,
            "lang": card.lang,
            "locale": card.locale,
        }
    )


def _bound(raw: str | None, default: int, low: int, high: int, name: str) -> int:
    """``default`` within [low, high], and never above the parameter ``name`` when given (a
    whole number of pixels from 1: anything else is a 400 naming the parameter)."""
    value = max(low, min(high, default))
    if raw is None:
        return value
    try:
        limit = int(raw)
    except ValueError:
        limit = 0
    if limit < 1:
        raise PageError(
            400, _("'%(name)s' must be a whole number of pixels, at least 1.", name=name)
        )
    return min(value, limit)


# ---- the API described ---------------------------------------------------------------------
@bp.get("/api/openapi.json")
def openapi_json() -> Response:
    """The OpenAPI document, generated from :data:`kb.web.URLS`."""
    from kb.web import URLS, openapi

    g.is_json = True
    return jsonify(openapi.document(URLS, public_base()))


@bp.get("/api/")
def api_docs() -> Response:
    """The OpenAPI document as a page for people (in English, like the document)."""
    from kb.search.notes import TEXTS
    from kb.web import URLS, openapi

    g.is_json = False
    g.locale = "en"
    doc = openapi.document(URLS, public_base())
    html = render_template(
        "api.html",
        doc=doc,
        schemas=doc["components"]["schemas"],
        notes=sorted(TEXTS.items()),
        alternates={},
    )
    return Response(html, mimetype="text/html")
