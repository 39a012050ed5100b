"""The two read-only resources of the web app: the built knowledge base and the search index.

Both come from the instance's published build (:mod:`kb.base.instance`). A build never changes once
published; a new one is published beside it, and :class:`BuildWatcher` moves the app to it on the
next request without a restart, while requests in flight finish on the build they started with.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any

from flask import Flask, current_app, g, request

from kb.base import instance as layout
from kb.base.instance import BuildError, pointer_target
from kb.knowledge.model import KnowledgeBase
from kb.store.published import load
from kb.web.current import current

log = logging.getLogger(__name__)


class SearchUnavailable(RuntimeError):
    """The index cannot be opened: searches answer 503 until the instance is rebuilt."""


class SearcherPool:
    """The process's one searcher, opened on first use and kept until shutdown.

    Why shared rather than one per request: opening the index and its spelling dictionary costs
    about 0.2 s, the artefacts are read-only for the life of the process, and
    :class:`kb.search.Searcher` serialises its Whoosh readers with its own lock. Several copies
    would not search faster anyway, since scoring is CPU-bound Python under the GIL; repeated
    queries are served by the page cache.
    """

    def __init__(self, index_dir: Path, kb: KnowledgeBase) -> None:
        self.index_dir = index_dir
        self.kb = kb
        self._searcher: Any = None
        self._lock = threading.Lock()
        self.error: str | None = None
        if not index_dir.is_dir():
            self.error = f"no search index at {index_dir}"

    @property
    def available(self) -> bool:
        """True when searches can run."""
        return self.error is None

    def get(self) -> Any:
        """The searcher (opened on first use)."""
        if self.error is not None:
            raise SearchUnavailable(self.error)
        if self._searcher is None:
            with self._lock:
                if self._searcher is None:
                    try:
                        # Imported here: Whoosh and the analysers load with the first search,
                        # not with every worker's start.
                        from kb.search import Searcher

                        self._searcher = Searcher(self.index_dir, self.kb)
                    except Exception as exc:  # a damaged or outdated index: report, never crash
                        # One line naming the cause (a traceback of a damaged file tells the
                        # operator nothing more, and `kb get` would print it to the user).
                        log.error("cannot open the search index at %s: %s", self.index_dir, exc)
                        self.error = (
                            f"cannot open the search index ({exc.__class__.__name__}); "
                            "rebuild it with `kb build --force`"
                        )
                        raise SearchUnavailable(self.error) from None
        return self._searcher

    def close(self) -> None:
        """Close the searcher if it was opened."""
        with self._lock:
            if self._searcher is not None:
                self._searcher.close()
                self._searcher = None


class Build:
    """One published build as the app uses it: its knowledge base and its searcher pool."""

    def __init__(self, build_id: str | None, kb: KnowledgeBase, search: SearcherPool) -> None:
        self.build_id = build_id
        self.kb = kb
        self.search = search


class BuildWatcher:
    """Follows the instance's ``current`` pointer: when a new build is published, the next request
    opens it (one ``readlink`` per request to notice); requests already running keep the build
    they started with, whose files stay on disk until a later build removes them."""

    def __init__(self, app: Flask, instance: Path, index_dir: Path | None) -> None:
        self.app = app
        self.instance = instance
        self.index_dir = index_dir
        self._lock = threading.Lock()
        #: The pointer's path, joined once (what :func:`kb.base.instance.build_id` reads).
        self._pointer = os.fspath(Path(instance) / layout.CURRENT)
        self.active = self._open(layout.build_id(instance))

    def _open(self, build_id: str | None) -> Build:
        kb = load(self.instance) if build_id is None else load_build(self.instance, build_id)
        folder = getattr(kb, "build_dir", None) or self.instance
        index = self.index_dir or Path(folder) / "index"
        return Build(build_id, kb, SearcherPool(index, kb))

    def current(self) -> Build:
        """The newest published build (reopened here when the pointer moved)."""
        active = self.active
        wanted = pointer_target(self._pointer)  # the pointer's path is made once
        if wanted is None or wanted == active.build_id:
            return active
        with self._lock:
            if self.active.build_id != wanted:
                try:
                    fresh = self._open(wanted)
                except BuildError:
                    log.exception("cannot open the new build %s; still serving the old", wanted)
                    self.active = Build(
                        wanted, active.kb, active.search
                    )  # do not retry per request
                    return self.active
                self.active = fresh
                _published(self.app, fresh)
                log.info("now serving build %s", wanted)
                self._retire(active)
            return self.active

    def _retire(self, old: Build) -> None:
        """Close a replaced build once the requests that started on it are surely done, so the
        process holds no file of a build that a later one deletes."""
        grace = float(self.app.config.get("KB_RETIRE_SECONDS", 60))
        timer = threading.Timer(grace, close_build, [old])
        timer.daemon = True
        timer.start()


def close_build(build: Build) -> None:
    """Close the searcher and every database connection of a build."""
    build.search.close()
    close = getattr(build.kb, "close", None)
    if close is not None:
        close()


def load_build(instance: Path, build_id: str) -> KnowledgeBase:
    """The knowledge base of one build folder of an instance (``builds/<id>``)."""
    folder = Path(instance) / build_id
    return load(folder)


def _published(app: Flask, build: Build) -> None:
    """Point the app at a newly opened build: its objects, ETags that follow its content hash,
    and an empty page cache (its pages were rendered from the old build)."""
    app.extensions["kb"] = build.kb
    app.extensions["kb_search"] = build.search
    code = app.config.get("CODE_VERSION", "")
    app.config["ETAG_SEED"] = f"{build.kb.content_hash}:{code}"
    cache = app.extensions.get("kb_page_cache")
    if cache is not None:
        with cache.lock:
            cache.entries.clear()
            cache.bytes = 0


def follow_builds(app: Flask) -> None:
    """Check for a new build before anything else answers, the page cache included (call once
    the app's WSGI stack is complete). A page rendered from the old build by a request that was
    in flight when the new one arrived is dropped from the cache again as it leaves."""
    watcher: BuildWatcher | None = app.extensions.get("kb_watcher")
    if watcher is None:
        return
    inner = app.wsgi_app
    if hasattr(inner, "entries") and hasattr(inner, "lock"):
        app.extensions["kb_page_cache"] = inner

    def checked(environ: dict[str, Any], start_response: Any) -> Any:
        build = watcher.current()
        environ["kb.build"] = build
        result = inner(environ, start_response)
        cache = app.extensions.get("kb_page_cache")
        if watcher.active is not build and cache is not None:
            key = f"{environ.get('PATH_INFO', '')}?{environ.get('QUERY_STRING', '')}"
            with cache.lock:
                old = cache.entries.pop(key, None)
                if old is not None:
                    cache.bytes -= len(old[2])
        return result

    app.wsgi_app = checked  # type: ignore[method-assign]


def init_app(app: Flask) -> None:
    """Open the published build (or take a ready knowledge base from the config), prepare the
    searcher, and follow new builds request by request."""
    kb = app.config.get("KB")
    instance = Path(app.config["INSTANCE"])
    index_dir = Path(app.config["INDEX_DIR"]) if app.config.get("INDEX_DIR") else None
    if kb is not None:
        build = Build(None, kb, SearcherPool(index_dir or instance / "index", kb))
        app.extensions["kb_build"] = build
    else:
        watcher = BuildWatcher(app, instance, index_dir)
        app.extensions["kb_watcher"] = watcher
        build = watcher.active
    app.extensions["kb"] = build.kb
    app.extensions["kb_search"] = build.search
    app.before_request(_pick_build)


def _pick_build() -> None:
    """Bind the request to the newest build: everything it reads comes from that one."""
    extensions = current_app.extensions
    watcher = extensions.get("kb_watcher")
    if watcher is None:
        g.kb_build = extensions["kb_build"]
    else:
        g.kb_build = request.environ.get("kb.build") or watcher.current()


def _build() -> Build:
    """The request's build, else the app's newest."""
    found = current()
    build = None if found is None else found.g.get("kb_build")
    if build is None:
        watcher = current_app.extensions.get("kb_watcher")
        build = watcher.active if watcher is not None else current_app.extensions["kb_build"]
    return build  # type: ignore[no-any-return]


def get_kb() -> KnowledgeBase:
    """The knowledge base of the build this request started on."""
    return _build().kb


def get_search() -> SearcherPool:
    """The searcher pool of the build this request started on."""
    return _build().search
