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

from kb.build import load
from kb.model import KnowledgeBase
from kb.search import Searcher

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
                        self._searcher = Searcher(self.index_dir, self.kb)
                    except Exception as exc:  # a damaged or outdated index: report, never crash
                        log.exception("cannot open the search index at %s", self.index_dir)
                        self.error = f"cannot open the search index ({exc.__class__.__name__})"
                        raise SearchUnavailable(self.error) from None
        return self._searcher

    def close(self) -> None:
        """Close the searcher if it was opened."""
        with self._lock:
            if self._searcher is not None:
                self._searcher.close()
                self._searcher = None


def init_app(app: Flask) -> None:
    """Load the knowledge base (or take a ready one from the config) and prepare the searcher."""
    kb = app.config.get("KB")
    instance = Path(app.config["INSTANCE"])
    if kb is None:
        kb = load(instance)
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
