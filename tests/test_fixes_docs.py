"""The documented SQLite schema (kb.store's docstring) is the real one, column for column."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import kb.store
from kb.store import SCHEMA


def documented() -> dict[str, list[str]]:
    """``name(col, col, ...)`` of every table the docstring describes."""
    doc = kb.store.__doc__ or ""
    return {
        name: [c.strip() for c in cols.split(",")]
        for name, cols in re.findall(r"``(\w+)\(([^)]*)\)``", re.sub(r"\s+", " ", doc))
    }


def test_the_docstring_lists_every_table_with_its_columns() -> None:
    db = sqlite3.connect(":memory:")
    db.executescript(SCHEMA)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    real = {t: [r[1] for r in db.execute(f"PRAGMA table_info({t})")] for t in tables}
    assert documented() == real


def test_the_readme_lineage_query_lists_dated_changes_only(embedded_instance: Path) -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    query = re.search(r'sqlite3 -readonly instance/kb.sqlite "(SELECT e\.date.*?)"', readme, re.S)
    assert query, "the README's first SQLite example is gone"
    db = sqlite3.connect(f"file:{embedded_instance / 'kb.sqlite'}?mode=ro", uri=True)
    rows = db.execute(query.group(1)).fetchall()
    assert rows and all(date for date, _number, _change in rows), rows
    assert all(change != "same" for _date, _number, change in rows)
