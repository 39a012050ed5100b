"""The current request's app, request and ``g`` as plain objects, for code a page calls by the dozen.

Flask's ``current_app``, ``request`` and ``g`` are proxies: every attribute read looks the
object up again through werkzeug's ``LocalProxy``. The URL builder alone asks for the app and
the script root some forty times a page, and through the proxies that was measured at several
per cent of a rule page's CPU. So :func:`bind`, the app's first ``before_request`` function,
takes the three objects once (through ``_get_current_object()``, the proxies' documented way
to them) into a context variable of this module, :func:`unbind`, a ``teardown_request``
function, puts back what was there before, and :func:`current` reads them. Only Flask's public
API is used: no Flask internals.

Outside a dispatched request, in a request context pushed by hand (``test_request_context``),
:func:`current` answers from the proxies; outside any request, None.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import Any, NamedTuple

from flask import Flask, Request, current_app, g, has_request_context, request

__all__ = ["Current", "bind", "current", "init_app", "unbind"]


class Current(NamedTuple):
    """The objects behind ``current_app``, ``request`` and ``g`` in this request."""

    app: Flask
    request: Request
    g: Any


_CURRENT: ContextVar[Current | None] = ContextVar("kb_web_current", default=None)
#: The WSGI environ key of the token that puts back what :data:`_CURRENT` held before.
_TOKEN = "kb.current_token"


def _from_proxies() -> Current:
    return Current(
        current_app._get_current_object(),  # type: ignore[attr-defined]
        request._get_current_object(),  # type: ignore[attr-defined]
        g._get_current_object(),  # type: ignore[attr-defined]
    )


def bind() -> None:
    """Keep this request's objects for :func:`current` (a ``before_request`` function)."""
    found = _from_proxies()
    # Kept in the request's own environ, not in ``g``: a request dispatched inside another
    # (a test client's, ``kb serve --get``) shares its app context, hence its ``g``.
    found.request.environ[_TOKEN] = _CURRENT.set(found)


def unbind(_error: BaseException | None = None) -> None:
    """Put back what :func:`current` answered before this request (``teardown_request``)."""
    token: Token[Current | None] | None = request.environ.pop(_TOKEN, None)
    if token is not None:
        try:
            _CURRENT.reset(token)
        except ValueError:  # set in another context (a copied one): forget it here
            _CURRENT.set(None)


def current() -> Current | None:
    """This request's app, request and ``g``; None outside a request."""
    found = _CURRENT.get()
    if found is not None:
        return found
    return _from_proxies() if has_request_context() else None


def init_app(app: Flask) -> None:
    """Register :func:`bind` and :func:`unbind` (first, so that every other ``before_request``
    function of the app, and the blueprints', which run after the app's, see the objects)."""
    app.before_request(bind)
    app.teardown_request(unbind)
