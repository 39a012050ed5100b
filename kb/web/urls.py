"""URL building at page speed: :func:`url_for` gives what :func:`flask.url_for` gives, faster.

A rule page links a hundred URLs (its history alone one per edition), and Flask builds each by
matching the URL map, which cost about a tenth of a page. Here each endpoint's URL is built once
by Flask with placeholder values and then filled in: exact for values that URLs carry as they
are (letters, digits, ``.``, ``_``, ``~``, ``-``); anything else, and any call with Flask's own
keywords (``_external``, ``_anchor`` ...), goes to Flask.
"""

from __future__ import annotations

import re
from typing import Any

from flask import current_app, request
from flask import url_for as flask_url_for

_PLAIN = re.compile(r"[A-Za-z0-9._~-]+\Z")
_MARK = "kbUrlSlot{}x"
#: (app id, script root, endpoint, argument names) -> the URL's pieces around the values.
_templates: dict[tuple[Any, ...], tuple[list[str], list[int]] | None] = {}


def url_for(endpoint: str, **values: Any) -> str:
    """The URL of ``endpoint`` with ``values``, equal to :func:`flask.url_for` inside a request."""
    names = tuple(values)
    for value in values.values():
        if value is None or not _PLAIN.match(str(value)):
            return flask_url_for(endpoint, **values)
    for name in names:
        if name.startswith("_"):
            return flask_url_for(endpoint, **values)
    key = (id(current_app._get_current_object()), request.script_root, endpoint, names)  # type: ignore[attr-defined]
    template = _templates.get(key, False)
    if template is False:
        template = _template(endpoint, names)
        _templates[key] = template
    if template is None:
        return flask_url_for(endpoint, **values)
    pieces, order = template
    out = [pieces[0]]
    args = list(values.values())
    for i, index in enumerate(order):
        out.append(str(args[index]))
        out.append(pieces[i + 1])
    return "".join(out)


def _template(endpoint: str, names: tuple[str, ...]) -> tuple[list[str], list[int]] | None:
    """Flask's URL with placeholders, cut around them; None when the values do not appear
    exactly once each in the path (a query string, a converter that rewrites them)."""
    marks = [_MARK.format(i) for i in range(len(names))]
    built = flask_url_for(endpoint, **dict(zip(names, marks, strict=True)))
    if "?" in built or "#" in built:
        return None
    found = re.split("(" + "|".join(marks) + ")", built) if marks else [built]
    pieces = found[0::2]
    order = [marks.index(m) for m in found[1::2]]
    if sorted(order) != list(range(len(names))):
        return None
    return pieces, order
