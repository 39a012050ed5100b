"""The pages blueprint's machinery: a page as data (:class:`Page`), visitor errors
(:class:`PageError`), and :func:`twin`, which registers each page under its URL and its ``.json``
twin and renders either form."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, Response, current_app, g, jsonify, render_template, request
from markupsafe import Markup
from werkzeug.routing import BaseConverter

from kb.web.i18n import LOCALES, Text
from kb.web.urls import url_for

bp = Blueprint("pages", __name__)
#: The layout of a page whose blocks Python writes (:attr:`Page.written`).
WRITTEN = "pages/_written.html"


@dataclass
class Page:
    """A page's template and data (the data is also the body of the JSON twin)."""

    template: str
    data: dict[str, Any]
    status: int = 200
    #: The same page in each interface locale, for the language switcher.
    alternates: dict[str, str] = field(default_factory=dict)
    #: The JSON twin's body when it is not ``data`` (a rule: the CLI's shape, ``data`` as "page"),
    #: or a function that makes it (only the JSON form calls it).
    json: dict[str, Any] | Callable[[], dict[str, Any]] | None = None
    #: Why the page is an error (status 4xx/5xx): the JSON twin then says ``ok: false`` with this
    #: as its ``error``, like every other error envelope, while the HTML page keeps its form.
    error: Text | None = None
    #: Writes the ``title`` and ``content`` blocks of ``template`` from ``data``, the same text
    #: the template writes, faster (rule pages: :mod:`kb.web.pages.rule_body`); the rest of
    #: the page is ``base.html``'s as for any page.
    written: Callable[[dict[str, Any]], tuple[Markup, Markup]] | None = None


class PageError(Exception):
    """A visitor error (404, 400) with a message and extra data such as suggestions.

    The message is a :class:`Text`: English in logs and the JSON ``error``, the visitor's
    language on the page and in ``error_local``.
    """

    def __init__(self, status: int, message: Text | str, **data: Any) -> None:
        text = message if isinstance(message, Text) else Text(message)
        super().__init__(text.english())
        self.status = status
        self.text = text
        self.message = text.english()
        self.data = data


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
        body = body() if callable(body) else body
        if page.error is not None:
            envelope = {
                "ok": False,
                "error": page.error.english(),
                "error_local": page.error.local(g.locale),
                "status": page.status,
            }
            response = jsonify({**envelope, "locale": g.locale, **body})
        else:
            response = jsonify({"ok": True, "locale": g.locale, **body})
        response.headers["Link"] = f'<{html_url}>; rel="alternate"; type="text/html"'
    else:
        alternates = page.alternates or swapped_locales()
        if page.written is not None:
            # kb.web.layout.page, which the app registers (the layout imports the pages'
            # cards, so the pages do not import it).
            write = current_app.extensions["kb.layout"]
            html = write(*page.written(page.data), alternates, json_url)
        else:
            html = render_template(
                page.template, alternates=alternates, json_url=json_url, **page.data
            )
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

        as_html.page_view = fn  # type: ignore[attr-defined]  # the export renders both forms
        bp.add_url_rule(rule, endpoint, as_html)
        bp.add_url_rule(json_rule(rule), endpoint + "_json", as_json)
        return fn  # type: ignore[return-value]

    return decorator


def suffix(url: str, fmt: str) -> str:
    """The URL in the form that was asked for: ``.json`` added for the JSON twin."""
    if fmt != "json":
        return url
    path, mark, query = url.partition("?")
    return path + ".json" + mark + query
