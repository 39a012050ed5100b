"""The pages blueprint: every page under ``/<locale>/`` and its ``.json`` twin."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, g, jsonify, redirect, render_template, request, url_for
from werkzeug.routing import BaseConverter

from kb.model import LANGS
from kb.web import search_view, views
from kb.web.i18n import LOCALES
from kb.web.i18n import text as _
from kb.web.resources import get_kb
from kb.web.views import Page, PageError

bp = Blueprint("pages", __name__)


class LocaleConverter(BaseConverter):
    """Only the three interface locales match, so ``/de/…`` is a plain 404."""

    regex = "|".join(LOCALES)


@bp.record_once
def _register_converter(state: Any) -> None:
    state.app.url_map.converters["locale"] = LocaleConverter


def json_rule(rule: str) -> str:
    """The URL of a page's JSON twin: ``/en/`` -> ``/en/index.json``, ``/en/rules/`` ->
    ``/en/rules.json``, ``/en/rules/<n>`` -> ``/en/rules/<n>.json``."""
    if rule.count("/") == 2 and rule.endswith(">/"):
        return rule + "index.json"
    if rule.endswith("/"):
        return rule[:-1] + ".json"
    return rule + ".json"


def respond(page: Page, fmt: str) -> Response:
    """Render a page as HTML or as its JSON envelope, with a Link to the other form."""
    html_url, json_url = _twin_urls()
    if fmt == "json":
        body = page.data if page.json is None else page.json
        response = jsonify({"ok": True, "locale": g.locale, **body})
        response.headers["Link"] = f'<{html_url}>; rel="alternate"; type="text/html"'
    else:
        alternates = page.alternates or swapped_locales()
        html = render_template(page.template, alternates=alternates, json_url=json_url, **page.data)
        response = Response(html, mimetype="text/html")
        response.headers["Link"] = f'<{json_url}>; rel="alternate"; type="application/json"'
    response.status_code = page.status
    return response


def _twin_urls() -> tuple[str, str]:
    """The URLs of this page's HTML and JSON forms (same arguments, same query)."""
    endpoint = (request.endpoint or "").removesuffix("_json")
    args = dict(request.view_args or {})
    query = request.query_string.decode("latin-1")
    suffix = f"?{query}" if query else ""
    return (
        url_for(endpoint, **args) + suffix,
        url_for(endpoint + "_json", **args) + suffix,
    )


def swapped_locales() -> dict[str, str]:
    """This URL (query included) in each locale: the language switcher's links."""
    query = request.query_string.decode("latin-1")
    suffix = f"?{query}" if query else ""
    return {loc: _swap_locale(request.path, loc) + suffix for loc in LOCALES}


def _swap_locale(path: str, locale: str) -> str:
    parts = path.split("/", 2)
    if len(parts) >= 2 and parts[1] in LOCALES:
        parts[1] = locale
        return "/".join(parts)
    return f"/{locale}/"


def twin(rule: str, endpoint: str) -> Callable[[Callable[..., Page]], Callable[..., Page]]:
    """Register a view under its URL and under the ``.json`` twin of that URL.

    Every view takes ``fmt`` ("html" or "json"), so a redirect keeps the form that was asked for.
    """

    def decorator(fn: Callable[..., Page | Response]) -> Callable[..., Page | Response]:
        def as_html(**kwargs: Any) -> Response:
            result = fn(**kwargs, fmt="html")
            return result if isinstance(result, Response) else respond(result, "html")

        def as_json(**kwargs: Any) -> Response:
            result = fn(**kwargs, fmt="json")
            return result if isinstance(result, Response) else respond(result, "json")

        bp.add_url_rule(rule, endpoint, as_html)
        bp.add_url_rule(json_rule(rule), endpoint + "_json", as_json)
        return fn  # type: ignore[return-value]

    return decorator


# ---- pages -------------------------------------------------------------------------------------
@twin("/<locale:locale>/", "home")
def home(locale: str, fmt: str = "html") -> Page:
    """Search box, newest editions and the table of contents."""
    return views.home(get_kb(), locale)


@twin("/<locale:locale>/rules/", "rules_index")
def rules_index(locale: str, fmt: str = "html") -> Page:
    """All sections and rules."""
    return views.rules_index(get_kb(), locale)


def _rule_number(text: str) -> str:
    num = views.parse_number(text)
    if num is None:
        shown = text if len(text) <= 40 else text[:40] + "…"
        raise PageError(
            404,
            _("“%(text)s” is not a rule number (try 117, 117.3 or 117.3a).", text=shown),
            number=shown,
            suggestions=[],
        )
    return str(num)


@twin("/<locale:locale>/rules/<number>", "rule")
def rule(locale: str, number: str, fmt: str = "html") -> Page | Response:
    """The current rule for a canonical number, in the locale's language where it exists."""
    kb = get_kb()
    key = _rule_number(number)
    edition = request.args.get("edition")
    if edition:
        # An old number in a named edition: send the visitor to the rule it became.
        ed, old = views.current_for_old(kb, edition, locale, key)
        target = old.canonical
        if target is None:
            return redirect(_suffix(views.rule_url(locale, key, ed.id), fmt), 302)
        return redirect(_suffix(views.rule_url(locale, target), fmt), 301)
    if key != number:
        return redirect(_suffix(url_for("pages.rule", locale=locale, number=key), fmt), 301)
    current = views.canonical_for(kb, locale, key)
    if current is not None and current != key:
        # An old number (116.3b before July 2019): its page is the rule it became. A 302, as a
        # later edition may give the number to another rule.
        return redirect(_suffix(url_for("pages.rule", locale=locale, number=current), fmt), 302)
    found = views.lookup_rule(kb, locale, key)
    if found is None:
        raise views.not_found_rule(kb, locale, key, None)
    return views.rule_page(kb, locale, found[0], found[1])


@twin("/<locale:locale>/<edition>/rules/<number>", "rule_pinned")
def rule_pinned(locale: str, edition: str, number: str, fmt: str = "html") -> Page | Response:
    """A rule as it was in one edition (its number in that edition's numbering)."""
    kb = get_kb()
    key = _rule_number(number)
    ed = views.resolve_edition(kb, edition, locale)
    if ed is None:
        raise PageError(
            404,
            _("No edition “%(edition)s”.", edition=edition[:40]),
            editions=[e for e in kb.editions],
        )
    if ed.id != edition or key != number:
        target = url_for("pages.rule_pinned", locale=locale, edition=ed.id, number=key)
        return redirect(_suffix(target, fmt), 301)
    found = kb.rule(ed.id, key)
    if found is None:
        raise views.not_found_rule(kb, locale, key, ed.id)
    return views.rule_page(kb, locale, found, fallback=found.lang != locale, pinned=ed.id)


def _suffix(url: str, fmt: str) -> str:
    return url + ".json" if fmt == "json" else url


@twin("/<locale:locale>/search", "search")
def search(locale: str, fmt: str = "html") -> Page:
    """Full-text search with filters, suggestions and paging."""
    return search_view.search(get_kb(), locale, request.args)


@twin("/<locale:locale>/glossary/", "glossary_index")
def glossary_index(locale: str, fmt: str = "html") -> Page:
    """Every glossary entry."""
    return views.glossary_index(get_kb(), locale)


@twin("/<locale:locale>/glossary/<key>", "glossary_entry")
def glossary_entry(locale: str, key: str, fmt: str = "html") -> Page | Response:
    """One entry; an alias or another spelling redirects to the entry's own key."""
    kb = get_kb()
    entry = views.find_glossary(kb, locale, key) if len(key) <= 200 else None
    if entry is None:
        wanted = key.strip().lower()[:60]
        near = [
            e
            for ed in kb.glossary.values()
            for e in ed.values()
            if wanted and (wanted in e.key or e.key in wanted)
        ][:8]
        raise PageError(
            404,
            _("No glossary entry “%(key)s”.", key=key[:60]),
            suggestions=[
                {"term": e.term, "url": url_for("pages.glossary_entry", locale=locale, key=e.key)}
                for e in near
            ],
        )
    if entry.key != key:
        target = url_for("pages.glossary_entry", locale=locale, key=entry.key)
        return redirect(_suffix(target, fmt), 301)
    return views.glossary_page(kb, locale, entry)


@twin("/<locale:locale>/editions/", "editions")
def editions(locale: str, fmt: str = "html") -> Page:
    """Every edition and the comparisons between them."""
    return views.editions(get_kb(), locale)


@twin("/<locale:locale>/editions/<span>", "changes")
def changes(locale: str, span: str, fmt: str = "html") -> Page:
    """What changed between two editions (``en-2019-06-14..en-2019-07-12``)."""
    return views.changes(get_kb(), locale, span)


@twin("/<locale:locale>/examples/", "examples")
def examples(locale: str, fmt: str = "html") -> Page:
    """Every executable example."""
    return views.examples_index(get_kb(), locale)


@twin("/<locale:locale>/examples/<example_id>", "example")
def example(locale: str, example_id: str, fmt: str = "html") -> Page:
    """One example and its engine trace."""
    kb = get_kb()
    for ex in kb.examples:
        if ex.id == example_id:
            return views.example_page(kb, locale, ex)
    raise PageError(
        404,
        _("No example “%(id)s”.", id=example_id[:60]),
        suggestions=[
            {"title": ex.title, "url": url_for("pages.example", locale=locale, example_id=ex.id)}
            for ex in kb.examples[:10]
        ],
    )


__all__ = ["LANGS", "bp"]
