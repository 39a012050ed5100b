"""The web app's only reliance on a library's internals, kept for a measured gain and guarded.

Everything else in :mod:`kb.web` uses the libraries' public API: ``flask.request``, ``flask.g``,
``flask.current_app`` (Flask's private context variables are no longer read: what a page reads
by the dozen is taken once per request through the proxies' documented
``_get_current_object()``, :mod:`kb.web.current`), and Jinja's documented
``Environment.getattr`` (:class:`kb.web.app._Environment`). The Jinja ``Template`` internals
once overridden (``_from_namespace``, to write values with :func:`kb.web.render.esc`, and
``_get_default_module``) and the ``Context.call`` shortcut were dropped: with and without
them, same pages interleaved in one process (median ratio over 60 to 68 blocks of 25 pages),
a rule page's CPU differed by 0.8% (Template) and 1.3% (Context), a glossary, example or
search page's by 4.4% and 2.2%; runs of one comparison spread by more than that here.

:func:`channel_class` relies on waitress's ``HTTPChannel.writable``, ``requests``,
``total_outbufs_len``, ``outbuf_lock``, ``will_close`` and ``close_when_flushed``; measured
with ``tests/bench/bench_load_ab.py`` (wrk, 32 kept-alive connections, 2 workers, page cache
off, the servers alternated round by round in one run) on the embedded corpus plus the
2025-11-14 and 2019-06-12 official rules, 8 rounds of 8 s: with waitress's own connection
the server spent 1.08x the CPU per request (3.91 against 3.64 ms, 7 rounds of 8), served
0.87x the requests per second (139 against 159) and its p99 was 446 against 395 ms (a shared
machine with a load average of 20 on 2 cores: the ratios are the figures that travel).

``tests/web/test_hooks.py`` checks that the installed version lies in :data:`VERIFIED` and that
each name still exists and behaves as assumed, and fails naming the installed version
otherwise. To drop the hook, return waitress's own ``HTTPChannel``: the output is the same.
"""

from __future__ import annotations

__all__ = ["VERIFIED", "channel_class"]

#: distribution -> (lowest verified version, first version not verified): the range the hook
#: was measured and tested on (``tests/web/test_hooks.py`` fails outside it).
VERIFIED: dict[str, tuple[str, str]] = {"waitress": ("3.0.2", "3.1")}


_CHANNEL_CLASS: type | None = None


def channel_class() -> type:
    """Waitress's connection, not asking the event loop to write while the task that renders
    its response is itself writing it.

    A task's thread appends its output and sends it at once, holding the connection's output
    lock; if it cannot send all, it pulls the loop's trigger before letting the lock go, and
    the task's end pulls it too. Waitress's own ``writable`` says yes as soon as output waits,
    so during that send the loop found the socket writable, failed to take the lock, and
    polled every connection again, round after round, taking the GIL from the threads that
    render pages: about 8 polls and 20 writes that sent nothing per page, measured with 32
    kept-alive connections (wrk). Here the loop leaves such a connection until the trigger
    or its next round; what is sent, and when, is the same."""
    global _CHANNEL_CLASS
    if _CHANNEL_CLASS is None:
        from waitress.channel import HTTPChannel

        class Channel(HTTPChannel):  # type: ignore[misc]
            def writable(self) -> bool:
                if self.requests and self.total_outbufs_len:
                    lock = self.outbuf_lock
                    if not lock.acquire(False):
                        # The task's thread is sending it (handle_write would skip it).
                        return bool(self.will_close or self.close_when_flushed)
                    lock.release()
                return bool(super().writable())

        _CHANNEL_CLASS = Channel
    return _CHANNEL_CLASS
