"""The history an incremental build refreshes (kb.history.patch.refresh_history) is the one a full write
gives, and only the new pairs of editions whose texts (or examples) differ are diffed again."""

from __future__ import annotations

import json
import shutil
import sqlite3
from itertools import pairwise
from pathlib import Path

import pytest

from kb.history import diffs as history
from kb.history import patch as history_patch


def _table(conn: sqlite3.Connection) -> dict[tuple[str, str], tuple[str, str, str, str]]:
    return {
        (lineage, lang): (digest, entries, texts, examples)
        for lineage, lang, digest, entries, texts, examples in conn.execute("SELECT * FROM history")
    }


def _sequences(conn: sqlite3.Connection) -> dict[tuple[str, str], list[tuple]]:
    """Each lineage's ``(edition, number, change, title, text, examples)`` rows, oldest edition
    first."""
    out: dict[tuple[str, str], list[tuple]] = {}
    for lineage, lang, *row in conn.execute(
        "SELECT l.lineage, e.lang, l.edition, l.number, l.change, r.title, r.text, r.examples "
        "FROM lineage l JOIN editions e ON e.id = l.edition "
        "JOIN rules r ON r.edition = l.edition AND r.number = l.number "
        "ORDER BY l.lineage, e.lang, e.position"
    ):
        out.setdefault((lineage, lang), []).append(tuple(row))
    return out


def _store_as_before(conn: sqlite3.Connection, rows: dict, renamed: dict[str, str]) -> None:
    """The history table as a build without the rows given would have written it."""
    conn.execute("DELETE FROM history")
    groups = ((key, found) for key, found in rows.items() if found)
    for lineage, *row in history.history_rows(groups, {}):
        conn.execute(
            "INSERT INTO history VALUES (?, ?, ?, ?, ?, ?)", (renamed.get(lineage, lineage), *row)
        )


@pytest.mark.parametrize("where", ["newest", "middle"])
def test_refresh_after_one_edition_equals_a_whole_write(
    full_instance: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    path = tmp_path / "kb.sqlite"
    shutil.copyfile((full_instance / "kb.sqlite").resolve(), path)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        want = _table(conn)
        english = [
            e
            for (e,) in conn.execute(
                "SELECT id FROM editions WHERE lang = 'en' AND kind = 'full' ORDER BY position"
            )
        ]
        added = english[-1] if where == "newest" else english[len(english) // 2]
        rows = _sequences(conn)
        touched = sorted(
            {lin for (lin, _), found in rows.items() if added in {r[0] for r in found}}
        )
        # One touched lineage was stored under another name (a renumbering renames lineages).
        renamed = {touched[0]: "old name"}
        _store_as_before(
            conn, {k: [r for r in v if r[0] != added] for k, v in rows.items()}, renamed
        )
        new_pairs = sum(
            1
            for key, found in rows.items()
            if key[0] in touched
            for a, b in pairwise(found)
            if added in (a[0], b[0])
            and (history.text_hash(*a[3:5]) != history.text_hash(*b[3:5]) or a[5] != b[5])
        )
        calls = []
        real = history.word_diff

        def counted(old: str, new: str):
            calls.append((old, new))
            return real(old, new)

        # texts are diffed in history_patch, examples by kb.history's helper
        monkeypatch.setattr(history, "word_diff", counted)
        monkeypatch.setattr(history_patch, "word_diff", counted)
        conn.execute("BEGIN")
        written = history_patch.refresh_history(
            conn,
            {k: [r[:3] for r in v] for k, v in rows.items() if k[0] in touched},
            [*touched, "old name"],
            [added],
        )
        conn.execute("COMMIT")
        assert written == sum(1 for lin, _ in rows if lin in touched)
        assert _table(conn) == want
        # Only the pairs the added edition makes with its neighbours, where the text changed,
        # were diffed (the other diffs came from the stored rows, the renamed lineage's too).
        assert 0 < len(calls) <= new_pairs
    finally:
        conn.close()


def test_refresh_reads_the_texts_of_a_lineage_it_has_no_rows_for(
    full_instance: Path, tmp_path: Path
) -> None:
    path = tmp_path / "kb.sqlite"
    shutil.copyfile((full_instance / "kb.sqlite").resolve(), path)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        want = _table(conn)
        rows = _sequences(conn)
        with_diffs = {lin for (lin, lang) in rows if "<ins>" in want[(lin, lang)][1]}
        # and lineages whose examples alone were edited somewhere (their diff is the last item)
        with_examples = {
            lin for (lin, lang) in rows if any(e[6] for e in json.loads(want[(lin, lang)][1]))
        }
        assert with_examples  # the six editions edit some examples only
        some = sorted(with_diffs)[:5] + sorted(with_examples)[:5]
        conn.executemany("DELETE FROM history WHERE lineage = ?", [(x,) for x in some])
        conn.execute("BEGIN")
        history_patch.refresh_history(
            conn, {k: [r[:3] for r in v] for k, v in rows.items() if k[0] in some}
        )
        conn.execute("COMMIT")
        assert _table(conn) == want
    finally:
        conn.close()


def test_refresh_refuses_a_table_of_an_older_format(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "kb.sqlite", isolation_level=None)
    try:
        conn.execute("CREATE TABLE history (lineage, lang, digest, entries)")
        with pytest.raises(ValueError, match="older format"):
            history_patch.refresh_history(conn, {})
    finally:
        conn.close()
