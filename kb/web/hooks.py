"""The web app's only uses of library internals, each kept for a measured gain, each guarded.

Everything else in :mod:`kb.web` uses the libraries' public API (``flask.request``, ``flask.g``,
``flask.current_app``; Jinja's ``Environment.template_class``, ``context_class``, ``getattr``
and ``Context.call``). What follows relies on names the libraries do not document, so a minor
release may rename or change them: ``tests/web/test_hooks.py`` checks that each still exists
and behaves as assumed, and that the installed version lies in :data:`VERIFIED`, and fails
naming the installed version otherwise. To drop a hook, delete it here: what it replaces is
the library's own behaviour, with the same output.

Figures: ``tests/bench/bench_page_cpu.py`` (CPU per uncached rule page, in-process, 2,000
pages, three rounds alternating the variants, medians) and ``tests/bench/bench_load_ab.py``
(wrk, 32 connections, 2 workers, servers alternated in one run), on the embedded corpus plus
the 2025-11-14 and 2019-06-12 official rules, with the hook and with the library's own code.

- :class:`Template` (Jinja ``Template._from_namespace``, ``Template._get_default_module``):
  FIGURES_TEMPLATE
- :func:`channel_class` (waitress ``HTTPChannel.writable``, ``outbuf_lock``,
  ``total_outbufs_len``, ``requests``, ``will_close``, ``close_when_flushed``):
  FIGURES_CHANNEL
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import MutableMapping
from typing import Any

from jinja2 import Template as JinjaTemplate

from kb.web.render import esc

__all__ = ["VERIFIED", "Template", "channel_class"]

#: distribution -> (lowest verified version, first version not verified): the range the hooks
#: were measured and tested on (``tests/web/test_hooks.py`` fails outside it).
VERIFIED: dict[str, tuple[str, str]] = {
    "jinja2": ("3.1.6", "3.2"),
    "waitress": ("3.0.2", "3.1"),
}


class Template(JinjaTemplate):
    """Jinja's template, writing ``{{ value }}`` with :func:`kb.web.render.esc` and importing
    macros of another template with a cheaper check of the importer's globals.

    - ``escape``: compiled templates call the ``escape`` of their namespace only on what they
      output (written, or buffered into a macro's result, marked safe as a whole), so plain
      escaped text serves as markupsafe's ``escape`` does, without a :class:`Markup` object
      around every value. Jinja fills that namespace in ``_from_namespace`` (from source and
      from its bytecode cache alike); no public point sets it.
    - ``_get_default_module``: for a template another imports on every render
      (``{% from ... import ... %}``), Jinja compares the importer's globals with this
      template's by a set difference with their ChainMap's keys, which Python walks whole; the
      difference with each of its mappings gives the same answer.
    """

    @classmethod
    def _from_namespace(
        cls,
        environment: Any,
        namespace: MutableMapping[str, Any],
        globals: MutableMapping[str, Any],
    ) -> JinjaTemplate:
        namespace["escape"] = esc
        return super()._from_namespace(environment, namespace, globals)  # type: ignore[misc]

    def _get_default_module(self, ctx: Any = None) -> Any:
        if ctx is not None:
            own = self.globals
            maps = own.maps if type(own) is ChainMap else [own]
            if ctx.globals_keys.difference(*maps):
                return super()._get_default_module(ctx)
        return super()._get_default_module(None)


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
