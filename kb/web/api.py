"""The JSON API: ``POST /api/linkify`` links every rule reference in a text."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, g, jsonify, request, url_for

from kb.link import find_refs, link_html
from kb.model import LANGS, KnowledgeBase, Ref
from kb.web import views
from kb.web.i18n import text as _
from kb.web.resources import get_kb
from kb.web.views import PageError

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_TEXT_CHARS = 100_000


def resolve(kb: KnowledgeBase, ref: Ref, lang: str, edition: str | None) -> str | None:
    """The canonical number a reference points to (through ``edition`` for old numbers)."""
    if edition:
        old = views.old_rule(kb, edition, lang, ref.number)
        return old.canonical if old else None
    if ref.canonical:
        return ref.canonical
    if ref.number in kb.concordance:
        return ref.number
    found = views.lookup_rule(kb, lang, ref.number)
    return found[0].canonical if found else None


@bp.route("/linkify", methods=["POST", "OPTIONS"])
def linkify() -> Response:
    """Link rule references in a text; JSON by default, an HTML fragment with ``format=html``.

    Body: JSON ``{"text": ..., "lang": "en", "edition": null}`` or the same as form fields.
    """
    g.is_json = True
    if request.method == "OPTIONS":
        response = Response(status=204)
        response.headers["Access-Control-Allow-Methods"] = "POST, OPTIONS"
        response.headers["Access-Control-Allow-Headers"] = "Content-Type"
        response.headers["Access-Control-Max-Age"] = "86400"
        return response
    payload: dict[str, Any]
    if request.is_json:
        body = request.get_json(silent=True)
        if not isinstance(body, dict):
            raise PageError(400, _("The body is not a JSON object."))
        payload = body
    else:
        payload = request.form.to_dict()
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
    if lang not in LANGS:
        raise PageError(
            400, _("Unknown language “%(lang)s”: use en, fr or ja.", lang=str(lang)[:20])
        )
    if edition is not None and not isinstance(edition, str):
        raise PageError(400, _("'edition' must be a string."))
    kb = get_kb()
    if edition is not None and views.resolve_edition(kb, edition, lang) is None:
        raise PageError(
            400, _("Unknown edition “%(edition)s”.", edition=edition[:40]), edition=edition[:40]
        )
    base = request.host_url.rstrip("/")
    # One entry per number (a range "601.2f–h" gives three sharing its label and span); the HTML
    # is the site's own rendering (kb.link.link_html): one link per printed span, to the first
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
    wants_html = request.args.get("format") == "html" or payload.get("format") == "html"
    if wants_html:
        g.is_json = False
        response = Response(html, mimetype="text/html")
        response.headers["Access-Control-Allow-Origin"] = "*"
        return response
    return jsonify({"ok": True, "lang": lang, "html": html, "refs": links})
