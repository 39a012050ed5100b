"""The one way the build writes a database file: a connection with no journal and no syncing,
inside one transaction committed at the end.

A build writes ``kb.sqlite`` into a new build folder that nothing reads until it is published,
and deletes the folder when the build fails, so the journal and the syncing would only cost
time. This module imports nothing of ``kb``: :mod:`kb.history.diffs` and :mod:`kb.store` both use it (and
its JSON encoding, :data:`ENCODE`),
and ``kb.store`` imports ``kb.history``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def bulk_write(
    path: Path | str, *, page_size: int | None = None, analyze: bool = False
) -> Iterator[sqlite3.Connection]:
    """A connection to the database at ``path`` (created if absent) inside an open transaction,
    committed when the block ends without an exception and closed either way (a failed build's
    file is discarded, never read). ``page_size``: set before the first table of a new file;
    ``analyze``: run ``ANALYZE`` after the commit (the query planner's statistics)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        if page_size is not None:
            conn.execute(f"PRAGMA page_size = {int(page_size)}")
        conn.execute("BEGIN")
        yield conn
        conn.execute("COMMIT")
        if analyze:
            conn.execute("ANALYZE")
    finally:
        conn.close()


#: The one JSON encoding of the build's columns (compact, UTF-8 as is): the history's digests hash
#: the ``rules.examples`` column as the store writes it, so both must encode alike.
ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
