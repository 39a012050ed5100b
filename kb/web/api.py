"""The JSON API: ``POST /api/linkify`` links every rule reference in a text."""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Blueprint, Response, g, jsonify, request

from kb.knowledge import lookup
from kb.knowledge.model import LANGS, KnowledgeBase, Ref
from kb.text.references import find_refs, link_html
from kb.web.cardlinks import link_cards
from kb.web.i18n import text as _
from kb.web.pages.base import PageError
from kb.web.resources import get_kb
from kb.web.urls import url_for

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_TEXT_CHARS = 100_000
#: Far deeper than any real body ({"text": ...} is 1), far below the parser's recursion limit.
MAX_JSON_DEPTH = 32
#: Strings (skipped whole, escapes included) and brackets: what :func:`_depth` reads.
_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')
_SURROGATE = re.compile("[\ud800-\udfff]")


def resolve(kb: KnowledgeBase, ref: Ref, lang: str, edition: str | None) -> str | None:
    """The canonical number a reference points to (through ``edition`` for old numbers)."""
    if edition:
        old = lookup.old_rule(kb, edition, lang, ref.number)
        return old.canonical if old else None
    if ref.canonical:
        return ref.canonical
    if ref.number in kb.concordance:
        return ref.number
    found = lookup.lookup_rule(kb, lang, ref.number)
    return found[0].canonical if found else None


def preflight() -> Response:
    """The answer to a CORS preflight (OPTIONS) of a POST endpoint: POST with a JSON body allowed,
    cached a day."""
    response = Response(status=204)
    response.headers["Access-Control-Allow-Methods"] = "POST, OPTIONS"
    response.headers["Access-Control-Allow-Headers"] = "Content-Type"
    response.headers["Access-Control-Max-Age"] = "86400"
    return response


def json_body() -> dict[str, Any]:
    """The request's JSON object, or a 400 naming what is wrong with it.

    Strict where :meth:`flask.Request.get_json` is lenient or fragile: the bytes must be UTF-8
    (``json.loads`` of bytes would turn invalid bytes into lone surrogates), and a body nested
    deeper than :data:`MAX_JSON_DEPTH` is refused before the recursive parser sees it.
    """
    raw = request.get_data(cache=True)
    try:
        body_text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PageError(
            400, _("The body is not valid UTF-8 (byte %(offset)s).", offset=exc.start)
        ) from None
    if _depth(body_text) > MAX_JSON_DEPTH:
        raise PageError(
            400,
            _(
                "The JSON body is nested too deeply (at most %(depth)s levels).",
                depth=MAX_JSON_DEPTH,
            ),
        )
    try:
        body = json.loads(body_text)
    except ValueError:
        raise PageError(400, _("The body is not valid JSON.")) from None
    if not isinstance(body, dict):
        raise PageError(400, _("The body is not a JSON object."))
    if "\\u" in body_text and _holds_surrogate(body):
        raise PageError(
            400,
            _("The body holds a lone surrogate (\\ud800-\\udfff), which is not Unicode text."),
        )
    return body


def _holds_surrogate(value: Any) -> bool:
    """True when a parsed JSON value holds a lone surrogate in any string (a JSON escape such as
    ``\\ud800`` decodes to one; a valid pair decodes to one character and is fine)."""
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None
    if isinstance(value, dict):
        return any(_holds_surrogate(k) or _holds_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_surrogate(v) for v in value)
    return False


def _depth(text: str) -> int:
    """How deep brackets nest in a JSON text (brackets inside strings are not counted).

    Linear and allocation-free in the common case: the text without brackets has depth 0."""
    if "[" not in text and "{" not in text:
        return 0
    depth = deepest = 0
    for token in _JSON_TOKENS.finditer(text):
        char = token.group()
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_JSON_DEPTH:
                break
        elif char in "]}":
            depth -= 1
    return deepest


@bp.route("/linkify", methods=["POST", "OPTIONS"])
def linkify() -> Response:
    """Link rule references in a text; JSON by default, an HTML fragment with ``format=html``.

    Body: JSON ``{"text": ..., "lang": "en", "edition": null}`` or the same as form fields.
    """
    g.is_json = True
    if request.method == "OPTIONS":
        return preflight()
    payload = json_body() if request.is_json else request.form.to_dict()
    text, lang = payload.get("text"), payload.get("lang") or "en"
    edition = payload.get("edition") or None
    if not isinstance(text, str):
        raise PageError(400, _("Missing 'text': the text to link, as a string."))
    if len(text) > MAX_TEXT_CHARS:
        raise PageError(
            400,
            _(
                "The text is too long (%(length)s characters, at most %(limit)s).",
                length=len(text),
                limit=MAX_TEXT_CHARS,
            ),
        )
    if not isinstance(lang, str):
        raise PageError(400, _("'lang' must be a string: en, fr or ja."))
    formats = [f for f in (request.args.get("format"), payload.get("format")) if f is not None]
    for fmt in formats:
        if fmt not in ("json", "html"):
            raise PageError(
                400, _("Unknown format “%(format)s”: use json or html.", format=str(fmt)[:20])
            )
    if lang not in LANGS:
        raise PageError(
            400, _("Unknown language “%(lang)s”: use en, fr or ja.", lang=str(lang)[:20])
        )
    if edition is not None and not isinstance(edition, str):
        raise PageError(400, _("'edition' must be a string."))
    kb = get_kb()
    if edition is not None and lookup.resolve_edition(kb, edition, lang) is None:
        raise PageError(
            400, _("Unknown edition “%(edition)s”.", edition=edition[:40]), edition=edition[:40]
        )
    base = request.host_url.rstrip("/")
    # One entry per number (a range "601.2f–h" gives three sharing its label and span); the HTML
    # is the site's own rendering (kb.text.references.link_html): one link per printed span, to the first
    # number that resolves, the range's numbers in data-rules, unresolved ones as a span.
    links: list[dict[str, Any]] = []
    linked: list[Ref] = []
    urls: dict[int, str | None] = {}
    for ref in find_refs(text, lang):
        canonical = resolve(kb, ref, lang, edition)
        url = base + url_for("pages.rule", locale=lang, number=canonical) if canonical else None
        links.append(
            {
                "label": ref.label,
                "number": ref.number,
                "canonical": canonical,
                "url": url,
                "start": ref.start,
                "end": ref.end,
            }
        )
        shown = Ref(canonical or ref.number, ref.label, ref.start, ref.end)
        urls[id(shown)] = url
        linked.append(shown)
    html = link_html(text, linked, lambda r: urls[id(r)])
    html, cards = link_cards(kb, html, lang, base)  # a build with cards: [[Name]], 《名》, « Nom »
    if "html" in formats:
        g.is_json = False
        response = Response(html, mimetype="text/html")
        response.headers["Access-Control-Allow-Origin"] = "*"
        return response
    return jsonify({"ok": True, "lang": lang, "html": html, "refs": links, "cards": cards})
