"""What a build keeps for the next one: parsed files, linked editions, aligned edition pairs and
the search index's analysis of each text.

Every entry is keyed by a digest of everything it was computed from (the input's bytes or texts,
and the source of the code that computed it), so a stale entry is never found: it is simply not
asked for again, and :meth:`BuildCache.prune` removes what the last build did not use. Entries are
pickles in ``<instance>/cache/<kind>/``, written by the build that holds the instance's lock; a
damaged entry reads as a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from kb.base.paths import PACKAGE_DIR

#: The modules whose code decides each kind of entry (a change to one invalidates that kind).
CODE = {
    "docs": ("sources", "text/rulenum.py", "text/normal.py", "knowledge/terms.py"),
    "link": (
        *("text/references.py", "text/termmatch.py", "text/normal.py", "text/rulenum.py"),
        *("knowledge/model.py", "build/link.py", "build/termfind.py", "build/termsense.py"),
    ),
    "align": (
        *("align/concordance.py", "align/merges.py", "align/pairs.py"),
        *("text/normal.py", "text/rulenum.py", "knowledge/model.py"),
    ),
    "analysis": (
        *("search/analysis.py", "search/japanese.py", "search/stopwords.py"),
        *("text/normal.py", "knowledge/terms.py"),
    ),
    "cards": ("sources/cards.py", "sources/card_shapes.py", "sources/card_model.py"),
}


def digest(*parts: Any) -> str:
    """A stable digest of plain data: strings, numbers, None, and lists or tuples of them (their
    ``repr`` is unambiguous; pass dicts as sorted items)."""
    return hashlib.blake2b(repr(parts).encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()


@cache
def code_digest(kind: str) -> str:
    """Digest of the source of the modules that compute one kind of entry."""
    h = hashlib.blake2b(digest_size=20)
    for name in CODE[kind]:
        path = PACKAGE_DIR / name
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for file in files:
            h.update(file.name.encode())
            with contextlib.suppress(OSError):
                h.update(file.read_bytes())
    return h.hexdigest()


#: At least this many entries to write are written in the background (:meth:`BuildCache.put_many`).
BACKGROUND_ENTRIES = 8


class BuildCache:
    """Entries of one instance's cache folder (``None`` folder: a cache that keeps nothing)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = Path(folder) if folder is not None else None
        self.used: set[Path] = set()
        #: digests computed once per build (an edition's fingerprint serves two pairs)
        self.memo: dict[Any, Any] = {}
        self.hits = 0
        self.misses = 0
        #: entries being written by forked processes (:class:`kb.base.forked.Forked`, each
        #: giving the paths it used): :meth:`wait` before the build ends
        self.background: list[Any] = []

    def wait(self) -> None:
        """Wait for the entries written in the background (their paths count as used)."""
        while self.background:
            self.used.update(self.background.pop().result())

    def cancel(self) -> None:
        """Stop writing entries in the background (the build failed)."""
        while self.background:
            self.background.pop().cancel()

    def put_many(
        self, kind: str, entries: Iterable[tuple[str, Any]], count: int, background: bool = False
    ) -> None:
        """Store ``count`` entries ``(key, value)``. With ``background`` (the caller waits for
        them: :meth:`wait`) and at least :data:`BACKGROUND_ENTRIES` (an archive), a forked
        process makes and writes them while the build goes on: pickling is pure Python, and
        the values are not changed once given (``entries`` may be a generator: it runs there)."""
        from kb.base.forked import Forked  # kb.build imports this module

        if (
            background
            and self.folder is not None
            and count >= BACKGROUND_ENTRIES
            and Forked.available()
        ):

            def put_all() -> set[Path]:
                for key, value in entries:
                    self.put(kind, key, value)
                return self.used

            self.background.append(Forked(put_all, fork=True))
            return
        for key, value in entries:
            self.put(kind, key, value)

    def _path(self, kind: str, key: str) -> Path | None:
        return self.folder / kind / f"{key}.pickle" if self.folder is not None else None

    def get(self, kind: str, key: str) -> Any | None:
        """The entry, or None (absent, unreadable, or no folder)."""
        path = self._path(kind, key)
        if path is None:
            return None
        try:
            with path.open("rb") as handle:
                value = pickle.load(handle)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            self.misses += 1
            return None
        self.used.add(path)
        self.hits += 1
        return value

    def put(self, kind: str, key: str, value: Any) -> None:
        """Store an entry (written whole, then renamed into place)."""
        path = self._path(kind, key)
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        with tmp.open("wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
        self.used.add(path)

    def prune(self) -> int:
        """Remove the entries this build did not use; returns how many."""
        if self.folder is None or not self.folder.is_dir():
            return 0
        removed = 0
        for path in self.folder.glob("*/*"):
            if path not in self.used:
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed += 1
        return removed
