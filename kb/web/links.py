"""Links for other tools: the bare ``/``, permalinks ``/r/<number>``, OpenSearch and suggestions."""

from __future__ import annotations

from flask import Blueprint, Response, g, jsonify, redirect, render_template, request

from kb.knowledge.model import LANGS
from kb.web.i18n import LOCALES, negotiate
from kb.web.i18n import text as _
from kb.web.pages.base import PageError
from kb.web.pages.common import find_rule, parse_number
from kb.web.pages.search import suggestions
from kb.web.resources import get_kb
from kb.web.urls import url_for

bp = Blueprint("links", __name__)


def _visitor_locale() -> str:
    """``?lang=`` if given, else Accept-Language (so a shared link opens in the reader's language)."""
    wanted = request.args.get("lang", "")
    if wanted in LOCALES:
        return wanted
    locale = negotiate(request.accept_languages)
    if wanted:  # a language we do not have: said, not silently replaced by English
        g.locale = locale
        raise PageError(400, _("Unknown language “%(lang)s”: use en, fr or ja.", lang=wanted[:20]))
    return locale


def _vary(response: Response) -> Response:
    g.uncacheable = True
    response.headers["Vary"] = "Accept-Language"
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/")
def root() -> Response:
    """Pick an interface language from Accept-Language."""
    return _vary(redirect(url_for("pages.home", locale=_visitor_locale()), 302))


@bp.get("/r/")
def permalink_form() -> Response:
    """Map a Yawgatog anchor (``/r/#R1173a``, by a tiny script) or a typed number to a rule."""
    number = request.args.get("number", "")
    if number:
        return permalink(number)
    g.locale = _visitor_locale()
    return _vary(
        Response(render_template("pages/permalink.html", alternates={}), mimetype="text/html")
    )


@bp.get("/r/<number>")
def permalink(number: str) -> Response:
    """The current rule in the visitor's language; with ``?edition=`` an old number is mapped."""
    locale = _visitor_locale()
    g.locale = locale
    g.uncacheable = True
    as_json = number.endswith(".json")
    number = number.removesuffix(".json")
    g.is_json = as_json
    kb = get_kb()
    num = parse_number(number)
    if num is None:
        raise PageError(
            404, _("“%(text)s” is not a rule number.", text=number[:40]), suggestions=[]
        )
    # The rule page's steps (kb.web.pages.common.find_rule), every answer a redirect: a 302,
    # as the visitor's language or a later edition may change where a number leads.
    found = find_rule(kb, locale, str(num), request.args.get("edition"), read=False)
    target = found.url
    if as_json:
        target += ".json"
    return _vary(redirect(target + found.via, 302))


@bp.get("/opensearch.xml")
@bp.get("/<locale:locale>/opensearch.xml")
def opensearch(locale: str | None = None) -> Response:
    """The OpenSearch description: browsers offer the site as a search engine."""
    g.locale = locale or "en"
    xml = render_template("opensearch.xml", locale=g.locale, base=request.host_url.rstrip("/"))
    return Response(xml, mimetype="application/opensearchdescription+xml")


@bp.get("/<locale:locale>/suggest")
def suggest(locale: str) -> Response:
    """OpenSearch suggestions: ``[query, [completions]]``."""
    g.is_json = True
    q = request.args.get("q", "")
    lang = request.args.get("lang", locale)
    if lang not in LANGS:
        raise PageError(400, _("Unknown language “%(lang)s”: use en, fr or ja.", lang=lang[:20]))
    return jsonify([q[:200], suggestions(get_kb(), q, lang)])
