"""The library internals of kb/web/hooks.py: each still there and behaving as the hook assumes.

A release of waitress that renamed or changed one fails here, naming the installed
version, rather than breaking pages or the server's event loop with no test able to say why.
"""

from __future__ import annotations

import re
import socket
import threading
from importlib.metadata import version
from typing import Any

import pytest

from kb.web.hooks import VERIFIED, channel_class


def _release(text: str) -> tuple[int, ...]:
    """``3.1.6`` -> (3, 1, 6); a pre-release suffix (``3.2.0rc1``) counts as its release."""
    return tuple(int(part) for part in re.findall(r"\d+", text.split("+")[0])[:3])


def _installed(dist: str) -> str:
    """``waitress 3.0.2``: what a failing check names, so its reader knows what changed."""
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
