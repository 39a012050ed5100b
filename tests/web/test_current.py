"""kb.web.current: the request's objects, read once, are always this request's (or none)."""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app, g, request

from kb.web import current as objects


def _app() -> Flask:
    app = Flask("current-test")
    objects.init_app(app)
    seen: dict[str, Any] = {}

    @app.before_request
    def later() -> None:  # registered after bind: sees the objects already
        seen["before"] = objects.current()

    @app.get("/<name>")
    def view(name: str) -> str:
        found = objects.current()
        assert found is not None
        assert found.app is current_app._get_current_object()  # type: ignore[attr-defined]
        assert found.request is request._get_current_object()  # type: ignore[attr-defined]
        assert found.g is g._get_current_object()  # type: ignore[attr-defined]
        assert seen["before"] is found
        if name == "outer":  # a request dispatched while this one runs
            inner = app.test_client().get("/inner").get_data(as_text=True)
            assert objects.current() is found, "the inner request put back the outer's"
            return f"outer {found.request.path} {inner}"
        return found.request.path

    return app


def test_a_request_reads_its_own_objects_and_none_remain_after_it() -> None:
    app = _app()
    assert objects.current() is None
    assert app.test_client().get("/one").get_data(as_text=True) == "/one"
    assert objects.current() is None
    assert app.test_client().get("/two").get_data(as_text=True) == "/two"
    assert objects.current() is None


def test_a_request_inside_a_request_restores_the_outer_ones() -> None:
    response = _app().test_client().get("/outer")
    assert response.status_code == 200
    assert response.get_data(as_text=True) == "outer /outer /inner"
    assert objects.current() is None


def test_a_request_context_pushed_by_hand_is_answered_from_flasks_proxies() -> None:
    app = _app()
    with app.test_request_context("/by-hand", base_url="http://x/root/"):
        found = objects.current()
        assert found is not None
        assert found.app is app
        assert found.request.path == "/by-hand"
        assert found.request.root_path == "/root"
    assert objects.current() is None
