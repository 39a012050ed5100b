"""The two read-only resources of the web app: the built knowledge base and the search index.

Both are opened once per process from the instance folder: the artefacts never change under a
running server (a rebuild writes a new folder and renames it), so there is nothing to refresh.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from flask import Flask, current_app

from kb.model import KnowledgeBase

log = logging.getLogger(__name__)

try:  # the search package is optional: the site still browses without it
    from kb.search import Searcher, SearchError
except ImportError:  # pragma: no cover - depends on what is installed
    Searcher = None  # type: ignore[assignment,misc]

    class SearchError(ValueError):  # type: ignore[no-redef]
        """Stand-in so views can catch search errors even when search is unavailable."""


def load_kb(instance: Path) -> KnowledgeBase:
    """Read ``kb.json`` through :mod:`kb.build` when present (it knows the format best)."""
    try:
        from kb.build import load
    except ImportError:
        return KnowledgeBase.load(instance / "kb.json")
    return load(instance)


class SearcherPool:
    """One searcher per worker thread, opened lazily and kept for the life of the process.

    A Whoosh searcher holds open readers that are not meant to be shared between threads, while
    opening one costs milliseconds; waitress runs a fixed set of worker threads, so a searcher per
    thread gives thread safety without paying the opening cost on every request.
    """

    def __init__(self, index_dir: Path, kb: KnowledgeBase) -> None:
        self.index_dir = index_dir
        self.kb = kb
        self._local = threading.local()
        self._all: list[Any] = []
        self._lock = threading.Lock()
        self.error: str | None = None
        if Searcher is None:
            self.error = "the search package is not installed"
        elif not index_dir.is_dir():
            self.error = f"no search index at {index_dir}"

    @property
    def available(self) -> bool:
        """True when searches can run."""
        return self.error is None

    def get(self) -> Any:
        """This thread's searcher (opened on first use)."""
        if self.error is not None:
            raise SearchError(self.error)
        searcher = getattr(self._local, "searcher", None)
        if searcher is None:
            searcher = Searcher(self.index_dir, self.kb)  # type: ignore[misc]
            self._local.searcher = searcher
            with self._lock:
                self._all.append(searcher)
        return searcher

    def close(self) -> None:
        """Close every searcher the pool opened."""
        with self._lock:
            for searcher in self._all:
                try:
                    searcher.close()
                except Exception:  # closing is best effort at shutdown
                    log.debug("closing a searcher failed", exc_info=True)
            self._all.clear()


def init_app(app: Flask) -> None:
    """Load the knowledge base (or take a ready one from the config) and prepare the searcher."""
    kb = app.config.get("KB")
    instance = Path(app.config["INSTANCE"])
    if kb is None:
        kb = load_kb(instance)
    app.extensions["kb"] = kb
    app.extensions["kb_search"] = SearcherPool(
        Path(app.config.get("INDEX_DIR") or instance / "index"), kb
    )


def get_kb() -> KnowledgeBase:
    """The knowledge base of the running app."""
    return current_app.extensions["kb"]


def get_search() -> SearcherPool:
    """The searcher pool of the running app."""
    return current_app.extensions["kb_search"]
