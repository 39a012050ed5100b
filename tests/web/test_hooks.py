"""The library internals of kb/web/hooks.py: each still there and behaving as the hook assumes.

A release of Jinja or waitress that renamed or changed one fails here, naming the installed
version, rather than breaking pages or the server's event loop with no test able to say why.
"""

from __future__ import annotations

import inspect
import re
import socket
import threading
from collections.abc import Iterator
from importlib.metadata import version
from typing import Any

import jinja2
import pytest
from markupsafe import Markup

from kb.web.hooks import VERIFIED, Template, channel_class
from kb.web.render import esc


def _release(text: str) -> tuple[int, ...]:
    """``3.1.6`` -> (3, 1, 6); a pre-release suffix (``3.2.0rc1``) counts as its release."""
    return tuple(int(part) for part in re.findall(r"\d+", text.split("+")[0])[:3])


def _installed(dist: str) -> str:
    """``jinja2 3.1.6``: what a failing check names, so its reader knows what changed."""
    return f"{dist} {version(dist)}"


@pytest.mark.parametrize("dist", sorted(VERIFIED))
def test_the_installed_library_is_one_the_hooks_were_verified_on(dist: str) -> None:
    low, high = VERIFIED[dist]
    installed = _release(version(dist))
    assert _release(low) <= installed < _release(high), (
        f"{_installed(dist)} is outside {low} <= version < {high}, the range kb/web/hooks.py "
        "was measured and tested on: run this file and the benchmarks of its docstring, then "
        "widen VERIFIED, or drop the hook"
    )


# ---- Jinja --------------------------------------------------------------------------------------
class _MemoryBytecodeCache(jinja2.BytecodeCache):
    """Jinja's bytecode cache in a dict: templates loaded a second time come from bytecode."""

    def __init__(self) -> None:
        self.stored: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.stored:
            bucket.bytecode_from_string(self.stored[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.stored[bucket.key] = bucket.bytecode_to_string()


SOURCES = {
    "macros.html": "{% macro card(x) %}<b>{{ x }}</b>{{ site }}{% endmacro %}",
    "page.html": '{% from "macros.html" import card %}{{ card(value) }}|{{ value }}|{{ safe }}',
}


def _env(template_class: type[jinja2.Template], cache: jinja2.BytecodeCache) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.DictLoader(SOURCES), autoescape=True, bytecode_cache=cache
    )
    env.template_class = template_class
    return env


@pytest.fixture
def cache() -> Iterator[_MemoryBytecodeCache]:
    yield _MemoryBytecodeCache()


def test_jinja_still_has_the_template_internals_the_hook_overrides() -> None:
    where = _installed("jinja2")
    from_namespace = inspect.getattr_static(jinja2.Template, "_from_namespace", None)
    assert isinstance(from_namespace, classmethod), f"{where}: Template._from_namespace is gone"
    params = list(inspect.signature(jinja2.Template._from_namespace).parameters)
    assert params == ["environment", "namespace", "globals"], f"{where}: {params}"
    assert "_from_namespace" in inspect.getsource(jinja2.Template.from_code), (
        f"{where}: Template.from_code no longer builds templates through _from_namespace"
    )
    params = list(inspect.signature(jinja2.Template._get_default_module).parameters)
    assert params == ["self", "ctx"], f"{where}: Template._get_default_module{params}"
    assert "globals_keys" in inspect.getsource(jinja2.Template._get_default_module), (
        f"{where}: _get_default_module no longer compares the context's globals_keys"
    )
    assert hasattr(jinja2.runtime.Context(jinja2.Environment(), {}, "t", {}), "globals_keys"), (
        f"{where}: Context.globals_keys is gone"
    )


def test_compiled_templates_still_write_values_with_the_escape_of_their_namespace() -> None:
    code = jinja2.Environment(autoescape=True).compile("{{ value }}", raw=True)
    assert re.search(r"\bescape\(", code), f"{_installed('jinja2')}: no escape() in:\n{code}"


@pytest.mark.parametrize("from_bytecode", [False, True])
def test_templates_write_with_our_escape_from_source_and_from_bytecode(
    cache: _MemoryBytecodeCache, from_bytecode: bool
) -> None:
    if from_bytecode:
        _env(Template, cache).get_template("page.html")  # fills the cache
        assert cache.stored
    template = _env(Template, cache).get_template("page.html")
    assert template.root_render_func.__globals__["escape"] is esc, _installed("jinja2")


@pytest.mark.parametrize(
    "context",
    [
        {"value": "<i>&'\"", "safe": Markup("<em>kept</em>")},
        {"value": 3, "safe": None},
        {"value": Markup("<b>"), "safe": "x", "site": "<site>"},
    ],
)
def test_pages_render_as_with_jinjas_own_template(
    cache: _MemoryBytecodeCache, context: dict[str, Any]
) -> None:
    """Same output as Jinja's own Template, whether the importer adds globals or not."""
    for globals_ in (None, {"site": "&shared"}):
        ours = _env(Template, cache).get_template("page.html", globals=globals_)
        jinjas = _env(jinja2.Template, _MemoryBytecodeCache()).get_template(
            "page.html", globals=globals_
        )
        assert ours.render(context) == jinjas.render(context), (_installed("jinja2"), globals_)


def test_an_imported_template_with_the_importers_globals_is_made_once() -> None:
    """The cheap check must still answer "nothing new": Jinja then keeps one module."""
    env = _env(Template, _MemoryBytecodeCache())
    imported = env.get_template("macros.html")
    ctx = imported.new_context()
    assert imported._get_default_module(ctx) is imported._get_default_module(ctx), _installed(
        "jinja2"
    )
    other = imported.new_context({"site": "x"}, shared=True)
    other.globals_keys = {"site"}  # a global of the importer the imported template lacks
    module = imported._get_default_module(other)
    assert module is not imported._get_default_module(None)
    assert str(module.card("a")) == "<b>a</b>x", _installed("jinja2")


# ---- waitress -----------------------------------------------------------------------------------
def _channel() -> tuple[Any, socket.socket, socket.socket]:
    from waitress.adjustments import Adjustments

    ours, theirs = socket.socketpair()
    server = type("Server", (), {"active_channels": {}})()
    return channel_class()(server, ours, ("127.0.0.1", 0), Adjustments(), map={}), ours, theirs


def test_the_waitress_internals_our_connection_and_server_read_are_there() -> None:
    """The connection class (kb.web.hooks) and the worker's server set-up (kb.web.serving) read
    these: a waitress that renamed one fails here, not in a serving process's event loop."""
    from waitress.server import BaseWSGIServer

    where = _installed("waitress")
    channel, ours, theirs = _channel()
    try:
        for name in ("requests", "total_outbufs_len", "outbuf_lock", "will_close"):
            assert hasattr(channel, name), f"{where}: HTTPChannel.{name} is gone"
        assert hasattr(channel, "close_when_flushed"), where
        assert "channel_class" in vars(BaseWSGIServer), where
        assert "task_dispatcher" in BaseWSGIServer.__init__.__code__.co_names, where
    finally:
        ours.close()
        theirs.close()


def test_the_event_loop_leaves_a_connection_alone_while_its_task_sends() -> None:
    """While a task's thread holds a connection's output lock (it is sending the page), the
    loop's poll must not list the connection as writable: waitress's own check did, its
    ``handle_write`` then skipped it, and the loop spun on it, taking the GIL from the pages."""
    from waitress.channel import HTTPChannel

    where = _installed("waitress")
    channel, ours, theirs = _channel()
    try:
        assert isinstance(channel, HTTPChannel)
        channel.requests = [object()]  # a task is running
        channel.total_outbufs_len = 100  # and has output waiting
        held, release = threading.Event(), threading.Event()

        def task_sends() -> None:
            with channel.outbuf_lock:
                held.set()
                release.wait(10)

        sender = threading.Thread(target=task_sends)
        sender.start()
        try:
            held.wait(10)
            assert HTTPChannel.writable(channel), f"{where}: no longer spins (drop the hook?)"
            assert not channel.writable(), where
            channel.will_close = True  # closing is still the loop's to do
            assert channel.writable(), where
            channel.will_close = False
        finally:
            release.set()
            sender.join()
        assert channel.writable(), where  # lock free: the loop sends what is left, as before
        channel.requests = []
        channel.total_outbufs_len = 0
        assert not channel.writable(), where
    finally:
        ours.close()
        theirs.close()
