"""The Flask application factory, shared response policy (headers, caching, errors) and entry points."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from flask import (
    Flask,
    Response,
    current_app,
    g,
    has_app_context,
    jsonify,
    render_template,
    request,
)
from flask.templating import Environment
from jinja2 import BytecodeCache, FileSystemBytecodeCache
from markupsafe import Markup
from werkzeug.exceptions import HTTPException
from werkzeug.http import quote_etag

import kb
from kb.base.paths import TEMPLATES_DIR, default_instance
from kb.web import current as request_objects
from kb.web import i18n, layout, resources, urls
from kb.web.current import current
from kb.web.i18n import Text
from kb.web.i18n import text as _
from kb.web.pages.base import PageError

log = logging.getLogger(__name__)

STATIC_DIR = Path(__file__).resolve().parent / "static"

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
#: The security headers as (name, lower-case name, value).
_SECURITY_HEADER_LIST = [(name, name.lower(), value) for name, value in SECURITY_HEADERS.items()]
#: Pages change only with a rebuild; a short max-age plus an ETag keeps revalidation cheap.
CACHE_CONTROL = "public, max-age=300"
CACHE_ENTRIES = 4096
#: Bytes of rendered pages kept in memory at most (the oldest go first).
CACHE_BYTES = 64 << 20
MAX_URL_CHARS = 2048


def _code_version() -> str:
    """A digest of the templates, static files and app code: part of every ETag."""
    digest = hashlib.sha256(kb.__version__.encode())
    roots = [TEMPLATES_DIR, STATIC_DIR, Path(__file__).resolve().parent]
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix in {".html", ".xml", ".css", ".js", ".py", ".po"}:
                digest.update(path.name.encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


#: Names a dict answers as attributes (its methods): only these are looked up as attributes.
_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(Environment):
    """Flask's template environment, with ``page.url`` on a dict looked up as a key at once.

    Jinja asks ``getattr`` first and takes the key only after the AttributeError, which on the
    hundreds of ``item.field`` of a templated page is a measurable part of its rendering (about
    8% of the CPU of a glossary, example or search page). A dict has no attributes but its
    methods, so the answer is the same. ``Environment.getattr`` is Jinja's documented point for
    this (its sandbox overrides it too)."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


class _Flask(Flask):
    jinja_environment = _Environment


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the web app: defaults, then the test config; load the knowledge base once.

    Config: ``INSTANCE`` (the built instance folder; default :func:`kb.base.paths.default_instance`),
    optionally ``KB`` (a ready :class:`~kb.knowledge.model.KnowledgeBase`, for tests), ``INDEX_DIR``
    (the search index, default ``INSTANCE/index``) and ``PAGE_CACHE`` (default True).
    """
    app = _Flask(
        __name__,
        template_folder=str(TEMPLATES_DIR),
        static_folder=str(STATIC_DIR),
        static_url_path="/static",
    )
    app.config.from_mapping(
        INSTANCE=default_instance(),
        PAGE_CACHE=True,
        MAX_CONTENT_LENGTH=1 << 20,
        # static URLs carry ?v=<code version>, so browsers may keep them for a day
        SEND_FILE_MAX_AGE_DEFAULT=86400,
    )
    if test_config:
        app.config.update(test_config)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.url_map.strict_slashes = True

    request_objects.init_app(app)  # first: the other request functions read it
    resources.init_app(app)
    knowledge = app.extensions["kb"]
    app.config["CODE_VERSION"] = _code_version()
    app.config["ETAG_SEED"] = f"{knowledge.content_hash}:{app.config['CODE_VERSION']}"

    _init_jinja(app)

    from kb.web import api, embed, links, pages, playapi

    # The pages wrap their written HTML in the site's layout through this (kb.web.pages.base).
    app.extensions["kb.layout"] = layout.page
    app.register_blueprint(pages.bp)
    app.register_blueprint(links.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(embed.bp)
    app.register_blueprint(playapi.bp)

    app.before_request(_before_request)
    app.after_request(_after_request)
    app.register_error_handler(PageError, _page_error)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected_error)
    if app.config["PAGE_CACHE"]:
        app.wsgi_app = PageCache(app.wsgi_app)  # type: ignore[method-assign]
    resources.follow_builds(app)  # outermost: a new build is seen before the page cache answers
    return app


# ---- templates ---------------------------------------------------------------------------------
#: (locale, message) -> the message translated: a page asks for the same few dozen messages.
_TRANSLATED: dict[tuple[str, str], str] = {}
#: The most messages kept (templates hold a few hundred; anything past this is looked up).
TRANSLATED_MAX = 4096


def _gettext(message: str, **variables: Any) -> str:
    locale = _locale()
    text = _TRANSLATED.get((locale, message))
    if text is None:
        text = i18n.translations(locale).ugettext(message)
        if len(_TRANSLATED) < TRANSLATED_MAX:
            _TRANSLATED[(locale, message)] = text
    return text % variables if variables else text


def _ngettext(singular: str, plural: str, n: int, **variables: Any) -> str:
    locale = _locale()
    key = (locale, singular, plural, n)
    text = _PLURALS.get(key)
    if text is None:
        text = i18n.translations(locale).ungettext(singular, plural, n)
        if len(_PLURALS) < TRANSLATED_MAX:
            _PLURALS[key] = text
    variables.setdefault("num", n)
    return text % variables


#: (locale, singular, plural, n) -> the form of the message for n (counts are small numbers).
_PLURALS: dict[tuple[str, str, str, int], str] = {}


def _locale() -> str:
    """The request's interface locale (``g.locale``), else the default (outside a request, or
    before :func:`_before_request` chose one). Templates ask for it with every message."""
    found = current()
    if found is not None:
        return found.g.get("locale") or i18n.DEFAULT_LOCALE
    return (has_app_context() and g.get("locale")) or i18n.DEFAULT_LOCALE


def _init_jinja(app: Flask) -> None:
    # Compiled templates are kept between processes (checked against the source's digest), so
    # a new worker's first page does not compile every template it includes.
    app.jinja_env.bytecode_cache = _bytecode_cache()
    app.jinja_env.add_extension("jinja2.ext.i18n")
    # Callables that read the request's locale: one shared environment serves all three languages.
    app.jinja_env.install_gettext_callables(_gettext, _ngettext, newstyle=False)  # type: ignore[attr-defined]
    # ``_`` called directly rather than through the extension's alias, which looks ``gettext``
    # up in the context again on every call (no template overrides ``gettext``).
    app.jinja_env.globals["_"] = _gettext
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
    app.jinja_env.filters["day"] = lambda iso: i18n.format_day(iso, _locale())
    app.jinja_env.filters["num"] = lambda n: i18n.format_number(n, _locale())
    app.jinja_env.filters["language"] = lambda code: i18n.language_name(code, _locale())
    app.jinja_env.globals.update(
        LANGUAGE_NAMES=i18n.LANGUAGE_NAMES,
        LOCALES=i18n.LOCALES,
        static_version=lambda: app.config["CODE_VERSION"],
        url_for=urls.url_for,  # Flask's URLs, built once per endpoint (kb.web.urls)
        chrome=_chrome,
    )


#: (app, script root, locale, part, cards) -> the rendered part of partials/chrome.html.
_CHROME: dict[tuple[int, str, str, str, bool], Markup] = {}


def _chrome(part: str) -> Markup:
    """A part of every page that depends only on the locale (``head``, ``script``, ``nav`` of
    partials/chrome.html), rendered once per locale and kept: a dozen URLs and messages fewer
    for every page to make. The navigation links the card index when the build has cards."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    cards = part == "nav" and _has_cards()
    key = (id(app), request.script_root, _locale(), part, cards)
    found = _CHROME.get(key)
    if found is None:
        macro = getattr(app.jinja_env.get_template("partials/chrome.html").module, part)
        found = Markup(str(macro(cards=True) if cards else macro()).removesuffix("\n"))
        _CHROME[key] = found
    return found


def _has_cards() -> bool:
    """Whether the request's build has cards (False for a page rendered without a build)."""
    from kb.store.cards import CardStore

    try:
        return CardStore.of(resources.get_kb()) is not None
    except (KeyError, AttributeError, RuntimeError):  # an error page of an app without a build
        return False


def _bytecode_cache() -> BytecodeCache | None:
    """Jinja's cache of compiled templates in the user's temporary folder (None: not writable)."""
    try:
        return FileSystemBytecodeCache()
    except (OSError, RuntimeError):
        return None


# ---- per request -------------------------------------------------------------------------------
def _before_request() -> Response | None:
    req, g_ = request, g
    path = req.path
    first = path.split("/", 2)[1] if path.count("/") >= 1 else ""
    g_.locale_from_url = first in i18n.LOCALES
    g_.locale = (req.view_args or {}).get("locale") or (
        first if g_.locale_from_url else i18n.negotiate(req.accept_languages)
    )
    g_.is_json = path.endswith(".json") or path.startswith("/api/")
    if len(req.full_path) > MAX_URL_CHARS:
        raise PageError(414, _("The address is too long."))
    if (
        req.method in ("GET", "HEAD")
        and "HTTP_IF_NONE_MATCH" in req.environ
        and etag_for_request() in req.if_none_match
    ):
        response = Response(status=304)
        response.set_etag(etag_for_request())
        response.headers["Cache-Control"] = CACHE_CONTROL
        return response
    return None


def etag_for_request() -> str:
    """The ETag of the resource at this URL: the build's content hash, the code and the URL."""
    memo = urls.per_request()  # raises outside a request
    etag = memo.get("etag")
    if etag is None:
        seed = current_app.config["ETAG_SEED"]
        etag = memo["etag"] = hashlib.sha1(
            f"{seed}:{request.full_path}".encode(), usedforsecurity=False
        ).hexdigest()
    return etag  # type: ignore[no-any-return]


def _after_request(response: Response) -> Response:
    """The shared headers: security policy, CORS for JSON, the page's language, and the cache
    policy (an ETag for what may be cached).

    Every response passes here, so it adds the headers the response lacks rather than setting
    them (a set scans every header)."""
    req, flags = request, g
    headers = response.headers
    # What a view set itself stays.
    present = {name.lower() for name, _value in headers}

    def put(name: str, lower: str, value: str) -> None:
        if lower in present:
            headers.set(name, value)
        else:
            headers.add(name, value)

    for name, lower, value in _SECURITY_HEADER_LIST:
        if lower not in present:
            headers.add(name, value)
    mimetype = response.mimetype
    if flags.get("is_json", False) or mimetype == "application/json":
        put("Access-Control-Allow-Origin", "access-control-allow-origin", "*")
    elif mimetype == "text/html":
        put("Content-Language", "content-language", _locale())
    cache_control = "cache-control" in present
    uncacheable = flags.get("uncacheable", False)
    if (
        req.method in ("GET", "HEAD")
        and response.status_code == 200
        and not uncacheable
        and not cache_control
    ):
        put("ETag", "etag", quote_etag(etag_for_request()))
        headers.add("Cache-Control", CACHE_CONTROL)
        cache_control = True
        req.environ["kb.cacheable"] = True
    elif (
        response.status_code == 404
        and req.method in ("GET", "HEAD")
        and flags.get("locale_from_url", False)
        and not uncacheable
    ):
        req.environ["kb.cacheable"] = True
    if not cache_control:
        headers.add("Cache-Control", "no-cache")
    return response


# ---- errors ------------------------------------------------------------------------------------
def error_response(status: int, message: Text | str, **data: Any) -> Response:
    """The error page, or its JSON envelope for JSON and API URLs.

    JSON keeps ``error`` in English, whatever the URL's language: tools match on it and logs
    quote it, so it must not change with the reader; ``error_local`` is the same message in the
    URL's language, the one the HTML page shows, for tools that show errors to people.
    """
    text = message if isinstance(message, Text) else Text(message)
    local = text.local(_locale())
    if getattr(g, "is_json", request.path.endswith(".json")):
        envelope = {"ok": False, "error": text.english(), "error_local": local, "status": status}
        response = jsonify({**envelope, **data})
    else:
        from kb.web.pages.base import swapped_locales

        alternates = swapped_locales() if getattr(g, "locale_from_url", False) else {}
        html = render_template(
            "errors/error.html", status=status, message=local, data=data, alternates=alternates
        )
        response = Response(html, mimetype="text/html")
    response.status_code = status
    return response


def _page_error(error: PageError) -> Response:
    return error_response(error.status, error.text, **error.data)


def _http_error(error: HTTPException) -> Response:
    status = error.code or 500
    if status == 404:
        message = _("No page at this address.")
    elif status == 405:
        message = _("Method %(method)s is not allowed here.", method=request.method)
    elif status == 413:
        message = _("The request body is too large.")
    else:
        # Werkzeug's descriptions are English only: the status names the problem instead.
        message = _("This request cannot be served (HTTP %(status)s).", status=status)
    response = error_response(status, message)
    if status == 405 and error.get_headers():
        for name, value in error.get_headers():
            if name.lower() == "allow":
                response.headers["Allow"] = value
    return response


def _unexpected_error(error: Exception) -> Response:
    log.exception("unexpected error on %s", request.path)
    g.setdefault("locale", i18n.DEFAULT_LOCALE)
    return error_response(500, _("Something went wrong on our side."))


# ---- in-process page cache ---------------------------------------------------------------------
class PageCache:
    """Keeps rendered GET responses keyed by URL (the knowledge base never changes in a process).

    Only responses the app marked cacheable (200s with an ETag, and 404s) are kept; a hit skips
    Flask entirely, which is what lets one process serve rule pages at a thousand requests/s.
    """

    def __init__(
        self,
        app: Callable[..., Iterable[bytes]],
        size: int = CACHE_ENTRIES,
        max_bytes: int = CACHE_BYTES,
    ) -> None:
        self.app = app
        self.size = size
        self.max_bytes = max_bytes
        self.bytes = 0
        self.entries: OrderedDict[str, tuple[str, list[tuple[str, str]], bytes, str]] = (
            OrderedDict()
        )
        self.lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        method = environ.get("REQUEST_METHOD", "GET")
        if method not in ("GET", "HEAD"):
            return self.app(environ, start_response)
        key = f"{environ.get('PATH_INFO', '')}?{environ.get('QUERY_STRING', '')}"
        with self.lock:
            hit = self.entries.get(key)
            if hit is not None:
                self.entries.move_to_end(key)
        if hit is not None:
            status, headers, body, etag = hit
            if etag and etag in environ.get("HTTP_IF_NONE_MATCH", ""):
                kept = [
                    (k, v)
                    for k, v in headers
                    if k.lower() not in {"content-length", "content-type"}
                ]
                start_response("304 NOT MODIFIED", kept)
                return [b""]
            start_response(status, headers)
            return [b"" if method == "HEAD" else body]
        captured: dict[str, Any] = {}

        def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            captured["status"], captured["headers"] = status, headers
            return start_response(status, headers, exc_info)

        result = self.app(environ, capture)
        if not (environ.get("kb.cacheable") and method == "GET"):
            return result  # streamed as is (static files keep their file wrapper)
        try:
            body = b"".join(result)
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        headers = captured["headers"]
        etag = next((v for k, v in headers if k.lower() == "etag"), "")
        with self.lock:
            old = self.entries.pop(key, None)
            if old is not None:
                self.bytes -= len(old[2])
            self.entries[key] = (captured["status"], headers, body, etag)
            self.bytes += len(body)
            while len(self.entries) > self.size or self.bytes > self.max_bytes:
                self.bytes -= len(self.entries.popitem(last=False)[1][2])
        return [body]
