"""URL building at page speed: :func:`url_for` gives what :func:`flask.url_for` gives, faster.

A rule page links a hundred URLs (its history alone one per edition), and Flask builds each by
matching the URL map, which cost about a tenth of a page. Here each endpoint's URL is built once
by Flask with placeholder values and then filled in: exact for values that URLs carry as they
are (letters, digits, ``.``, ``_``, ``~``, ``-``); anything else, and any call with Flask's own
keywords (``_external``, ``_anchor`` ...), goes to Flask.
"""

from __future__ import annotations

import contextlib
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from flask import url_for as flask_url_for

from kb.web.current import current

#: Values joined by "/" (which no plain value holds): all plain, each non-empty.
_ALL_PLAIN = re.compile(r"[A-Za-z0-9._~-]+(?:/[A-Za-z0-9._~-]+)*\Z")
_MARK = "kbUrlSlot{}x"
#: (app id, script root, endpoint, argument names) -> a format string of the URL (None: Flask's).
_templates: dict[tuple[Any, ...], str | None] = {}


def scope() -> tuple[int, str] | None:
    """What a URL built in this request depends on besides its endpoint and values: the app
    (by id) and the script root it is served under; None outside a request (nothing kept)."""
    found = current()
    return None if found is None else (id(found.app), found.request.root_path)


def _plain(values: Sequence[Any]) -> bool:
    """All values are strings that a URL carries unchanged."""
    try:
        return _ALL_PLAIN.match("/".join(values)) is not None
    except TypeError:  # not all strings
        return False


def url_for(endpoint: str, **values: Any) -> str:
    """The URL of ``endpoint`` with ``values``, equal to :func:`flask.url_for` inside a request."""
    return build(endpoint, tuple(values), tuple(values.values()))


def build(endpoint: str, names: tuple[str, ...], args: tuple[Any, ...]) -> str:
    """:func:`url_for` with the values' names and the values apart (what the few functions
    that make most of a page's URLs call, with names made once)."""
    if args:
        try:
            plain = _ALL_PLAIN.match("/".join(args)) is not None
        except TypeError:  # not all strings
            plain = False
        if not plain:
            return _flask_kept(endpoint, dict(zip(names, args, strict=True)))
    where = scope()
    template = None if where is None else _templates.get((*where, endpoint, names), False)
    if template is False:
        template = _template_for(endpoint, names)
    if template is None:
        return flask_url_for(endpoint, **dict(zip(names, args, strict=True)))
    return template.format(*args)  # type: ignore[union-attr]


#: URLs with values Flask must quote (glossary keys with spaces ...), as Flask built them.
_KEPT: OrderedDict[tuple[Any, ...], str] = OrderedDict()
KEPT_URLS = 4096


def _flask_kept(endpoint: str, values: dict[str, Any]) -> str:
    """:func:`flask.url_for`, remembered for the URLs whose values are strings (the same key
    recurs on every page that names it); other values (``_external`` ...) go to Flask each time."""
    where = scope()
    if where is None or not all(type(v) is str for v in values.values()):
        return flask_url_for(endpoint, **values)
    key = (*where, endpoint, *values.items())
    found = _KEPT.get(key)
    if found is None:
        found = flask_url_for(endpoint, **values)
        _KEPT[key] = found
        if len(_KEPT) > KEPT_URLS:
            with contextlib.suppress(KeyError):  # another thread emptied it first
                _KEPT.popitem(last=False)
    return found


def maker(endpoint: str, *names: str) -> Callable[..., str]:
    """A function of the values of ``names`` (in that order) that gives what :func:`url_for`
    gives, for the many URLs of one endpoint a page makes (only in the current request)."""
    template = _template_for(endpoint, names)

    def make(*args: Any) -> str:
        if template is not None and _plain(args):
            return template.format(*args)
        return flask_url_for(endpoint, **dict(zip(names, args, strict=True)))

    return make


def _template_for(endpoint: str, names: tuple[str, ...]) -> str | None:
    where = scope()
    if where is None:
        return None
    key = (*where, endpoint, names)
    template = _templates.get(key, False)
    if template is False:
        template = _template(endpoint, names)
        _templates[key] = template
    return template  # type: ignore[return-value]


def _template(endpoint: str, names: tuple[str, ...]) -> str | None:
    """Flask's URL with placeholders as a format string (``/{0}/rules/{1}``); None when the
    values do not appear exactly once each in the path (a query string, a keyword of Flask's
    own such as ``_external``, a converter that rewrites them)."""
    if any(name.startswith("_") for name in names):
        return None
    marks = [_MARK.format(i) for i in range(len(names))]
    built = flask_url_for(endpoint, **dict(zip(names, marks, strict=True)))
    if "?" in built or "#" in built:
        return None
    found = re.split("(" + "|".join(marks) + ")", built) if marks else [built]
    order = [marks.index(m) for m in found[1::2]]
    if sorted(order) != list(range(len(names))):
        return None
    out = [found[0].replace("{", "{{").replace("}", "}}")]
    for index, piece in zip(order, found[2::2], strict=True):
        out.append(f"{{{index}}}")
        out.append(piece.replace("{", "{{").replace("}", "}}"))
    return "".join(out)


def per_request() -> dict[str, Any]:
    """What this request has worked out once (its ETag, public base, link card), kept in its
    WSGI environ: ``g`` lives as long as the app context, which a caller may keep open across
    requests, and a value of one URL must never answer another."""
    found = current()
    if found is None:
        raise RuntimeError("Working outside of request context.")
    environ = found.request.environ
    memo: dict[str, Any] | None = environ.get("kb.per_request")
    if memo is None:
        memo = environ["kb.per_request"] = {}
    return memo
