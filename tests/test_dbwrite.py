"""kb.base.dbwrite.bulk_write: the one setup of the build's database writes."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from kb.base.dbwrite import bulk_write


def _rows(path: Path) -> list[tuple[int]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT x FROM t ORDER BY x").fetchall()
    finally:
        conn.close()


def test_bulk_write_commits_at_the_end_with_the_page_size_asked(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite"
    with bulk_write(path, page_size=8192, analyze=True) as conn:
        assert conn.in_transaction
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("off",)
        assert conn.execute("PRAGMA synchronous").fetchone() == (0,)
        conn.execute("CREATE TABLE t (x INTEGER)")
        conn.execute("CREATE INDEX t_x ON t (x)")
        conn.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(3)])
    assert _rows(path) == [(0,), (1,), (2,)]
    check = sqlite3.connect(path)
    try:
        assert check.execute("PRAGMA page_size").fetchone() == (8192,)
        # analyze=True: the planner's statistics were written after the commit
        assert check.execute("SELECT count(*) FROM sqlite_stat1").fetchone()[0] > 0
    finally:
        check.close()


def test_bulk_write_closes_without_committing_on_an_error(tmp_path: Path) -> None:
    path = tmp_path / "b.sqlite"
    with bulk_write(path) as conn:
        conn.execute("CREATE TABLE t (x INTEGER)")
    with pytest.raises(RuntimeError), bulk_write(path) as conn:
        conn.execute("INSERT INTO t VALUES (1)")
        raise RuntimeError("the build failed")
    with pytest.raises(sqlite3.ProgrammingError):
        conn.execute("SELECT 1")  # closed
    assert _rows(path) == []


@pytest.mark.parametrize("module", ["kb.history.diffs", "kb.store", "kb.base.dbwrite"])
def test_the_writers_import_without_a_cycle(module: str) -> None:
    # each first in a fresh interpreter: kb.store imports kb.history, which imports kb.base.dbwrite
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
