"""Production serving: every core, and slow clients that cannot lock anyone out.

On POSIX, gunicorn's arbiter preforks one worker process per core (it restarts a worker that dies
and stops them all cleanly on SIGTERM); inside each worker, waitress reads and writes the sockets.
Why not one of gunicorn's own worker classes: the ``sync`` and ``gthread`` workers park a thread on
each connection while its request arrives, so a few hundred clients sending a byte every few
seconds take every thread; waitress buffers requests in an event loop and hands only complete
ones to its threads, so a slow client costs a socket, not a thread. Elsewhere (Windows), one
waitress process with threads.

Workers share the listening socket, and a worker takes a new connection only while it holds
about as many as the others (:class:`_Balance`): clients that keep their connections open
would otherwise often stay on one worker while the other idles.

Each worker process creates the app itself (no ``preload``): the built artefacts are opened
read-only per process, never shared across a fork. The listening socket is bound before anything
is printed, so a busy port is the only line a user sees.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import select
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["ServeError", "bind", "serve", "waitress_options"]

#: Threads per process: pages are CPU-bound Python, so a few overlap I/O without fighting the GIL.
THREADS = 4
#: Open connections per process (waitress's default of 100 let 100 slow clients lock the site).
CONNECTION_LIMIT = 1000
#: Seconds a connection may stay silent between bytes before it is closed.
CHANNEL_TIMEOUT = 30
#: Connections waiting for accept() in the kernel.
BACKLOG = 2048
#: Collections of the middle generation between two full collections (Python's default: 10).
#: A full collection walks every object the caches hold (decoded rules, glossary entries): 30
#: to 100 ms during which a worker answers nobody, every ~800 pages at the default, enough to
#: set the p99 of a busy server. Ten times rarer, it no longer does; what it would have freed in
#: between (the few reference cycles of a request that outlive the young collections, about a
#: few hundred objects per full collection at the default) waits longer: about a MB at most.
FULL_COLLECTION_EVERY = 100


class ServeError(Exception):
    """The server cannot start (a busy port, a host that is not ours): one line for the user."""


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``, or a :class:`ServeError` that names ``--port``."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ServeError(f"cannot serve on {host}: {exc.strerror or exc} (check --host)") from None
    family, kind, proto, _name, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        if os.name == "posix":  # a restart must not wait for old connections in TIME_WAIT
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
    except OSError as exc:
        sock.close()
        if exc.errno in (98, 48, 10048):  # EADDRINUSE on Linux, macOS, Windows
            raise ServeError(
                f"port {port} is already in use on {host}: choose another with --port"
            ) from None
        raise ServeError(
            f"cannot serve on {host}:{port}: {exc.strerror or exc} (check --host and --port)"
        ) from None
    sock.setblocking(False)
    return sock


def _raise_file_limit(wanted: int) -> int:
    """Raise this process's open-file limit towards ``wanted`` (sockets are files); the limit."""
    try:
        import resource
    except ImportError:  # Windows: no such limit to raise
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


def waitress_options(threads: int = THREADS) -> dict[str, Any]:
    """Waitress's settings for the open internet: many idle or slow connections, bounded bodies."""
    files = _raise_file_limit(CONNECTION_LIMIT + 256)
    return {
        "threads": threads,
        "connection_limit": max(64, min(CONNECTION_LIMIT, files - 128)),
        "channel_timeout": CHANNEL_TIMEOUT,
        "cleanup_interval": 10,
        "backlog": BACKLOG,
        "ident": "kb",
        "max_request_header_size": 64 << 10,
        "max_request_body_size": 2 << 20,
    }


def _make_app(instance: Path, page_cache: bool = True) -> Any:
    """The app of one process, with its long-lived objects frozen out of the collector's way."""
    from kb.web.app import create_app

    app = create_app({"INSTANCE": Path(instance), "PAGE_CACHE": page_cache})
    # The knowledge base is read-only from here on: move its objects out of the collector's
    # reach, or every full collection walks them all (100 ms pauses at p99).
    gc.collect()
    gc.freeze()
    young, middle, _full = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
    pool = app.extensions["kb_search"]
    if pool.available:
        # The index takes most of a second to open: it opens in the background once the first
        # request is answered, rather than before it (or under it, fighting it for the GIL).
        started = threading.Event()

        def open_later(_exc: BaseException | None) -> None:
            if not started.is_set():
                started.set()
                threading.Thread(
                    target=_open_search, args=(pool,), name="kb-open-search", daemon=True
                ).start()

        app.teardown_request(open_later)
    return app


def _open_search(pool: Any) -> None:
    """Open the search index in the background (a failure is reported on the search page)."""
    try:
        pool.get()
    except Exception as exc:  # the site still browses
        print(f"kb: search unavailable: {exc}", file=sys.stderr)
        return
    gc.collect()
    gc.freeze()


def serve(
    instance: Path,
    host: str = "127.0.0.1",
    port: int = 5000,
    *,
    workers: int | None = None,
    debug: bool = False,
    announce: Callable[[str], None] | None = None,
    sock: socket.socket | None = None,
    page_cache: bool = True,
) -> None:
    """Serve an instance until stopped: ``workers`` processes (default: one per core) under
    gunicorn on POSIX, else one waitress process; Flask's reloading server with ``debug``.

    ``sock``: a socket already listening on ``host:port`` (from :func:`bind`), so that a caller
    can claim the port before a long build; ``page_cache=False`` renders every request (for
    benchmarks of uncached pages)."""
    say = announce or (lambda line: print(line, flush=True))
    url = f"http://{host if ':' not in host else f'[{host}]'}:{port}/"
    count = max(1, workers or os.cpu_count() or 1)
    if debug:  # Flask's reloading server binds the port itself
        if sock is not None:
            sock.close()
        say(f"kb: serving {instance} at {url} (debug)")
        _make_app(instance, page_cache).run(host=host, port=port, debug=True, use_reloader=True)
        return
    sock = sock or bind(host, port)
    if os.name != "posix" or (count == 1 and workers is None):
        started = time.perf_counter()
        app = _make_app(instance, page_cache)
        say(f"kb: serving {instance} at {url} (ready in {time.perf_counter() - started:.2f} s)")
        _waitress(app, [sock])
        return
    say(f"kb: serving {instance} at {url} ({count} worker processes)")
    # The app's code (Flask, Jinja, the pages) is imported once here: the forked workers inherit
    # it instead of each importing it again, side by side, before its first answer.
    from kb.web import api, app, embed, links, pages  # noqa: F401

    _Arbiter(instance, sock, count, page_cache).run()


def _waitress(
    app: Any,
    sockets: list[socket.socket],
    alive: Callable[[], bool] | None = None,
    balance: _Balance | None = None,
) -> None:
    """Run waitress on sockets that are already listening (until ``alive()`` turns false);
    with ``balance``, this process accepts a connection only while it holds no more of them
    than any other worker (see :class:`_Balance`)."""
    from waitress import wasyncore
    from waitress.server import BaseWSGIServer, create_server

    from kb.web.hooks import channel_class

    # Requests waiting for a thread are how waitress serves more connections than threads (a
    # browser's or a load test's kept-alive connections): its "Task queue depth is N" warning
    # then wrote a line to stderr for nearly every request of a busy server.
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    channels: dict[int, Any] = {}
    server = create_server(app, map=channels, sockets=sockets, **waitress_options())
    for listener in list(channels.values()):
        if isinstance(listener, BaseWSGIServer):
            listener.channel_class = channel_class()  # type: ignore[attr-defined]
    if alive is None:
        server.run()
        return
    own = len(channels)  # the listening sockets and waitress's trigger: not connections
    if balance is not None:
        for listener in list(channels.values()):
            if isinstance(listener, BaseWSGIServer):
                readable, accept = listener.readable, listener.handle_accept
                balanced_readable = _balanced_readable(
                    readable, listener.socket, balance, lambda: len(channels) - own
                )

                def balanced_accept(accept: Callable[[], None] = accept) -> None:
                    accept()
                    balance.publish(len(channels) - own)  # at once: the others look at it

                listener.readable = balanced_readable  # type: ignore[method-assign]
                listener.handle_accept = balanced_accept  # type: ignore[method-assign]
    try:
        while alive():
            timeout = 1.0
            if balance is not None:
                balance.publish(len(channels) - own)
                timeout = BALANCE_RECHECK_S if balance.waiting else 1.0
            wasyncore.loop(timeout=timeout, map=channels, count=1)
    finally:
        server.close()  # type: ignore[union-attr]
        server.task_dispatcher.shutdown(timeout=5)  # type: ignore[union-attr]
        wasyncore.close_all(channels)  # the connections still open, as the process would


def _balanced_readable(
    readable: Callable[[], bool], sock: socket.socket, balance: _Balance, held: Callable[[], int]
) -> Callable[[], bool]:
    """A listener's readable check that also asks ``balance`` whether this worker, holding
    ``held()`` connections, may accept one more."""

    def check() -> bool:
        if not readable():
            return False
        if balance.may_accept(held()):
            balance.waiting = False
            return True
        # Refused: look again soon only while a connection waits in the kernel, else an idle
        # worker holding more than another would wake every few ms for nothing.
        balance.waiting = bool(select.select([sock], [], [], 0)[0])
        return False

    return check


def _worker_class() -> type:
    """A gunicorn worker that serves its inherited sockets with waitress (see the module doc)."""
    from gunicorn.workers.base import Worker

    class WaitressWorker(Worker):  # type: ignore[misc]
        """Reads requests in waitress's event loop; tells the arbiter it lives every second."""

        def run(self) -> None:
            parent = os.getppid()
            told = 0.0
            balance = _BALANCE
            if balance is not None:
                balance.join(getattr(self, "kb_slot", -1))

            def alive() -> bool:
                nonlocal told
                now = time.monotonic()
                if now - told >= HEARTBEAT_S:  # a file's time set: not on every request
                    told = now
                    self.notify()
                return bool(self.alive) and os.getppid() == parent

            _waitress(self.wsgi, [listener.sock for listener in self.sockets], alive, balance)

    return WaitressWorker


#: Seconds between two heartbeats of a worker to the arbiter (its timeout is 120 s).
HEARTBEAT_S = 0.5
#: Seconds after which a worker that has not said how many connections it holds is left out.
BALANCE_STALE_S = 3.0
#: Seconds after which a worker that let a connection wait for another looks again.
BALANCE_RECHECK_S = 0.005


class _Balance:
    """How many connections each worker holds, in memory the workers share (mapped by the
    arbiter before it forks them), so that each accepts a connection only while it holds no
    more than the others.

    Workers share one listening socket, and the kernel gives a connection to whichever
    accepts first. Clients that keep their connections open (a browser, a proxy, a load test)
    then often stay on one worker: 21 and 11 of 32, even all 32 on one, measured, which left
    one core idle and doubled every wait on the other. A slot per worker holds its pid, its
    connections and when it last wrote them; slots not written for :data:`BALANCE_STALE_S` (a
    worker that died or hangs) are left out, so that the others accept without it."""

    _FORMAT = "=iid"

    def __init__(self, workers: int) -> None:
        import mmap
        import struct

        self.slots = max(2, 2 * workers)
        self._struct = struct.Struct(self._FORMAT)
        self._all = struct.Struct("=" + self._FORMAT[1:] * self.slots)
        self.mem = mmap.mmap(-1, self._all.size)  # anonymous and shared with forked children
        self.slot = -1
        #: This worker let a waiting connection wait for another: it looks again soon, not in a
        #: second (set by the listener's readable check, which sees whether one waits).
        self.waiting = False

    def assign(self, taken: set[int]) -> int:
        """A free slot for a worker about to be forked (in the arbiter, one at a time)."""
        slot = next((i for i in range(self.slots) if i not in taken), -1)
        if slot >= 0:
            self._struct.pack_into(self.mem, slot * self._struct.size, 0, 0, 0.0)
        return slot

    def join(self, slot: int) -> None:
        """This process (a forked worker) writes to ``slot`` from now on (-1: to none)."""
        self.slot = slot if 0 <= slot < self.slots else -1
        self.publish(0)

    def publish(self, connections: int) -> None:
        """Say how many connections this worker holds now."""
        if self.slot >= 0:
            self._struct.pack_into(
                self.mem, self.slot * self._struct.size, os.getpid(), connections, time.monotonic()
            )

    def may_accept(self, connections: int) -> bool:
        """Whether this worker, holding ``connections``, may take one more: no other live
        worker holds fewer by more than a little (one and an eighth of what that one holds: a
        burst of new connections is taken by both without waiting for each other)."""
        values = self._all.unpack_from(self.mem)
        now = time.monotonic()
        for i in range(self.slots):
            if i == self.slot:
                continue
            pid, count, written = values[3 * i : 3 * i + 3]
            if pid and now - written < BALANCE_STALE_S and connections > count + 1 + count // 8:
                return False
        return True


#: The balance of connections between the workers of this server (set in the arbiter).
_BALANCE: _Balance | None = None


def _slot_for(arbiter: Any, worker: Any) -> None:
    """Give a worker about to be forked its slot of :data:`_BALANCE` (gunicorn's pre_fork)."""
    if _BALANCE is not None:
        taken = {getattr(w, "kb_slot", -1) for w in arbiter.WORKERS.values()}
        worker.kb_slot = _BALANCE.assign(taken)


def _own_session(_arbiter: Any, _worker: Any) -> None:
    """Start each worker in a session of its own. Linux shares the processor fairly between
    sessions ("autogroups"), not processes: workers left in the arbiter's session would share
    one session's part of a busy machine however many they are. The arbiter still stops them
    (it signals each worker), and a worker whose arbiter died exits (see ``alive``)."""
    with contextlib.suppress(OSError):
        os.setsid()


class _Arbiter:
    """gunicorn's master process over our socket and our app factory."""

    def __init__(self, instance: Path, sock: socket.socket, workers: int, page_cache: bool) -> None:
        from gunicorn.app.base import BaseApplication

        options = {
            "bind": [f"fd://{sock.fileno()}"],
            "workers": workers,
            "worker_class": f"{__name__}._worker_class_ref",
            # A worker that loads a large build may take a while before its first heartbeat.
            "timeout": 120,
            "graceful_timeout": 10,
            "loglevel": "warning",
            "accesslog": None,
            "proc_name": "kb",
            "pre_fork": _slot_for,
            "post_fork": _own_session,
        }
        global _BALANCE
        _BALANCE = _Balance(workers)

        class Application(BaseApplication):  # type: ignore[misc]
            def load_config(self) -> None:
                for key, value in options.items():
                    self.cfg.set(key, value)

            def load(self) -> Any:
                return _make_app(instance, page_cache)

        self.sock = sock
        self.application = Application()

    def run(self) -> None:
        """Run until SIGTERM or SIGINT; a worker that cannot start stops the server."""
        self.application.run()


def __getattr__(name: str) -> Any:
    # gunicorn names its worker class by dotted path: build the class (and import gunicorn)
    # only when asked, so that importing this module never needs gunicorn.
    if name == "_worker_class_ref":
        return _worker_class()
    raise AttributeError(name)
