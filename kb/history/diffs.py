"""A rule's history per lineage and language, with its word diffs, precomputed at build time.

Every rule page shows the rule in every edition of each language, one row per change with its
word diff. Computing the diffs on each view cost more than the rest of the page together, and
they change only with a build, so the build writes them into their own table of ``kb.sqlite``:

``history(lineage, lang, digest, entries, texts, examples)``
    ``texts`` lists, entry by entry, a short hash of the rule's ``title text``, ``examples`` one
    of its examples (empty for a rule without any); ``digest`` hashes what the entries are made
    from (each edition's number, change and those hashes), so that the next build reuses the
    entries of every lineage whose texts did not change instead of diffing them again, and an
    incremental build knows which texts changed without reading them
    (:func:`kb.history.patch.patch_history`).
    ``entries`` is a JSON list, oldest edition first, of ``[edition, number, change,
    renumbered_from, diff_html, changed, examples_diff_html]``: ``renumbered_from`` is the
    number of the previous entry when it differs, ``diff_html`` the word diff
    (:mod:`kb.text.worddiff`) of ``title text`` with the previous entry where the lineage calls the
    rule edited and that text differs (NULL otherwise: a change of typography only is no edit),
    ``changed`` 1 on the first entry and wherever the number changed or the lineage calls the
    rule edited (where the folded history starts a new row; :func:`edited`), and
    ``examples_diff_html`` the word diff of the examples (one per line) where the lineage calls
    the rule edited, its ``title text`` is the previous entry's and its examples are not (the
    edit is in its examples; NULL otherwise).

:func:`write_history` fills the table from the database alone (editions, lineage and rules), and
a full build writes the same rows made from the knowledge base in memory (:func:`kb_history_rows`,
:func:`insert_history`). An incremental build patches only the lineages it touched, reusing the
stored word diffs (:mod:`kb.history.patch`). :func:`entries` reads one lineage, or computes it
from any :class:`~kb.knowledge.model.KnowledgeBase` when the table is absent (an in-memory knowledge base).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from kb.base.dbwrite import ENCODE as _ENCODE
from kb.base.dbwrite import bulk_write
from kb.knowledge.model import LANGS, KnowledgeBase
from kb.text.worddiff import word_diff

TABLE = "history"
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS history ("
    "lineage TEXT NOT NULL, lang TEXT NOT NULL, digest TEXT NOT NULL, entries TEXT NOT NULL, "
    "texts TEXT NOT NULL, examples TEXT NOT NULL)",
    "CREATE UNIQUE INDEX IF NOT EXISTS history_by_lineage ON history (lineage, lang)",
)

#: One history entry: (edition, number, change, renumbered_from, diff HTML, changed, examples
#: diff HTML).
Entry = tuple[str, str, str | None, str | None, str | None, bool, str | None]

#: What the lineage classification (:func:`kb.align.concordance.change_between`) calls an unchanged
#: text: the same words, whatever their typography (quotes, spaces, renumbered references).
KEPT = ("same", "moved")


def edited(change: str | None, same_text: bool) -> bool:
    """Whether an entry (not a lineage's first) changed its text since the one before, as the
    lineage classification says (``change``, what ``kb rule`` and the concordance show): a
    change of typography only is none. The texts decide only for an entry without one."""
    return not same_text if change is None else change not in KEPT


def fold(rows: Iterable[tuple[str, str, str | None, str | None, str | None, str]]) -> list[Entry]:
    """``(edition, number, change, title, text, examples)`` of one lineage in one language,
    oldest first (``examples``: the JSON list, as the ``rules`` table holds it), as history
    entries: each compared with the one before (its number and, where its change is an edit,
    the word diff of its text, or of its examples when its text is the same)."""
    out: list[Entry] = []
    prev_number: str | None = None
    prev_text: str | None = None
    prev_examples = "[]"
    for edition, number, change, title, text, examples in rows:
        full = full_text(title, text)
        renumbered = diff = examples_diff = None
        changed = prev_number is None
        if prev_number is not None:
            if prev_number != number:
                renumbered = prev_number
                changed = True
            if edited(change, prev_text == full):
                changed = True
                if prev_text != full:
                    diff = str(word_diff(prev_text or "", full))
                elif change == "edited" and prev_examples != examples:
                    examples_diff = _examples_diff(prev_examples, examples)
        out.append((edition, number, change, renumbered, diff, changed, examples_diff))
        prev_number, prev_text, prev_examples = number, full, examples
    return out


def _examples_diff(old: str, new: str) -> str:
    """The word diff of two rules' examples (JSON lists), one example a line."""
    return str(word_diff("\n".join(json.loads(old)), "\n".join(json.loads(new))))


def compute(kb: KnowledgeBase, lineage: str, lang: str) -> list[Entry]:
    """The entries of one lineage in one language from the knowledge base itself."""
    return fold(
        (
            e["edition"],
            e["number"],
            e["change"],
            e.get("title"),
            e.get("text"),
            _ENCODE(e.get("examples") or []),
        )
        for e in kb.history_texts(lineage, lang)
    )


def _grouped(conn: sqlite3.Connection, lineages: list[str] | None) -> Iterator[Any]:
    """``((lineage, lang), rows)`` in lineage order, each edition's rule oldest first."""
    sql = (
        "SELECT l.lineage, e.lang, l.edition, l.number, l.change, r.title, r.text, r.examples "
        "FROM lineage l JOIN editions e ON e.id = l.edition "
        "JOIN rules r ON r.edition = l.edition AND r.number = l.number AND r.lang = e.lang "
        "{where} ORDER BY l.lineage, e.lang, e.position"
    )
    if lineages is None:
        batches: Iterable[list[str] | None] = [None]
    else:
        batches = (lineages[i : i + 500] for i in range(0, len(lineages), 500))
    for batch in batches:
        if batch is None:
            cursor = conn.execute(sql.format(where=""))
        else:
            marks = ",".join("?" * len(batch))
            cursor = conn.execute(sql.format(where=f"WHERE l.lineage IN ({marks})"), batch)
        key: tuple[str, str] | None = None
        rows: list[tuple[Any, ...]] = []
        for lineage, lang, *row in cursor:
            if (lineage, lang) != key:
                if key is not None:
                    yield key, rows
                key, rows = (lineage, lang), []
            rows.append(tuple(row))
        if key is not None:
            yield key, rows


def write_history(
    path: Path, lineages: Iterable[str] | None = None, previous: Path | None = None
) -> int:
    """Write the ``history`` table of the database at ``path`` from its editions, lineage and
    rules tables; returns the rows written.

    ``lineages=None`` (a full build) rewrites the whole table. A caller may pass the lineages
    whose history may have changed: every lineage with a rule in an added or replaced edition,
    and every lineage whose rows in ``lineage`` were added, changed or removed (a rule
    renumbered in a new newest edition renames its lineage); the others are kept as they are.

    Either way, the entries of a lineage whose inputs hash as in ``previous`` (a database of an
    earlier build; default: the instance's published build when ``path`` is a build folder's)
    are copied from there rather than computed again: the word diffs are most of the cost.
    """
    path = Path(path)
    reuse = _previous_entries(previous if previous is not None else _published(path))
    written = 0
    with bulk_write(path) as conn:
        wanted = None if lineages is None else sorted(set(lineages))
        if not _table_ready(conn):
            wanted = None
        if wanted is None:
            conn.execute("DELETE FROM history")
        else:
            conn.executemany("DELETE FROM history WHERE lineage = ?", [(x,) for x in wanted])
        batch: list[tuple[str, ...]] = []
        for row in history_rows(_grouped(conn, wanted), reuse):
            batch.append(row)
            if len(batch) >= 2000:
                conn.executemany(_INSERT, batch)
                written += len(batch)
                batch.clear()
        conn.executemany(_INSERT, batch)
        written += len(batch)
    return written


def history_rows(
    groups: Iterable[tuple[tuple[str, str], list[tuple[Any, ...]]]],
    reuse: Mapping[tuple[str, str], tuple[str, str]],
) -> Iterator[tuple[str, ...]]:
    """The ``history`` rows of ``((lineage, lang), [(edition, number, change, title, text,
    examples)])`` groups, each lineage's entries copied from ``reuse`` when its inputs hash
    alike."""
    for (lineage, lang), rows in groups:
        hashes = [text_hash(title, text) for _, _, _, title, text, _ in rows]
        examples = [examples_hash(row[5]) for row in rows]
        digest = _digest(rows, hashes, examples)
        old = reuse.get((lineage, lang))
        if old is not None and old[0] == digest:
            data = old[1]
        else:
            data = json.dumps(fold(rows), ensure_ascii=False)
        yield lineage, lang, digest, data, ",".join(hashes), ",".join(examples)


def kb_history_rows(kb: KnowledgeBase, path: Path) -> list[tuple[str, ...]]:
    """The rows :func:`write_history` writes into the full database of ``kb`` at ``path``,
    made from the knowledge base in memory rather than read back from the database (so that a
    second process makes them while the first writes the database; :func:`insert_history`)."""
    positions = edition_positions(kb)
    groups: dict[tuple[str, str], list[tuple[int, str, str, Any, Any, Any, str]]] = {}
    for lineage, by_edition in kb.concordance.items():
        for ed_id, number in by_edition.items():
            rule = kb.rules[ed_id][number]
            groups.setdefault((lineage, kb.editions[ed_id].lang), []).append(
                (
                    positions[ed_id],
                    ed_id,
                    number,
                    rule.change,
                    rule.title,
                    rule.text,
                    _ENCODE(rule.examples or []),
                )
            )
    ordered = ((key, [row[1:] for row in sorted(groups[key])]) for key in sorted(groups))
    return list(history_rows(ordered, _previous_entries(_published(Path(path)))))


def edition_positions(kb: KnowledgeBase) -> dict[str, int]:
    """Each edition's position in time (by date, an undated quote where its wording fits): the
    ``editions`` table's ``position``, which orders a lineage's history."""
    ordered = sorted(kb.editions.values(), key=lambda e: (kb.sort_date(e), e.id))
    return {e.id: i for i, e in enumerate(ordered)}


def insert_history(path: Path, rows: list[tuple[str, ...]]) -> int:
    """Write the whole ``history`` table of the new database at ``path`` from ``rows``
    (:func:`kb_history_rows`); returns the rows written."""
    with bulk_write(path) as conn:
        _table_ready(conn)
        conn.execute("DELETE FROM history")
        conn.executemany(_INSERT, rows)
    return len(rows)


_INSERT = "INSERT INTO history VALUES (?, ?, ?, ?, ?, ?)"


def _table_ready(conn: sqlite3.Connection) -> bool:
    """Create the table if absent; False when a table of an older format had to be replaced
    (copied with the database it was built in: its rows cannot be kept beside the new ones)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(history)")}
    old = bool(columns) and "examples" not in columns
    if old:
        conn.execute("DROP TABLE history")
    for statement in SCHEMA:
        conn.execute(statement)
    return not old


def full_text(title: str | None, text: str | None) -> str:
    """A rule's title and text as one string, as its history compares and hashes them."""
    return f"{title or ''} {text or ''}".strip()


def text_hash(title: str | None, text: str | None) -> str:
    """A short hash of a rule's ``title text`` (equal hashes: :func:`fold` sees no change)."""
    return _hash_full(full_text(title, text))


def examples_hash(examples: str) -> str:
    """A short hash of a rule's examples (their JSON list), empty for a rule without any."""
    return "" if examples == "[]" else _hash_full(examples)


def _hash_full(full: str) -> str:
    return hashlib.blake2b(full.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _digest(rows: Sequence[tuple[Any, ...]], hashes: list[str], examples: list[str]) -> str:
    """A hash of one lineage's rows in one language: each edition, number, change, text hash
    and examples hash (what its entries are made from)."""
    rows = rows if len(rows[0]) == 3 else [row[:3] for row in rows]
    data = _ENCODE([_FORMAT, rows, hashes, examples])
    return hashlib.blake2b(data.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


#: How entries are made (what a previous build's entries must have been made by to be reused):
#: 2 = the edits the lineage classification sees, word diffs with the spaces carried by words;
#: 3 = with the word diffs of the examples where only they were edited.
_FORMAT = 3


def _published(path: Path) -> Path | None:
    """The published build's database of the instance that ``path`` is being built in."""
    from kb.base import instance as layout

    if path.parent.parent.name != layout.BUILDS_DIR:
        return None
    current = layout.current_build(path.parent.parent.parent)
    if current is None or current.resolve() == path.parent.resolve():
        return None
    return current / path.name


def _previous_entries(path: Path | None) -> dict[tuple[str, str], tuple[str, str]]:
    """``(lineage, lang) -> (digest, entries)`` of an earlier build ({} when there is none or
    it has no digests: an older format)."""
    if path is None or not path.is_file():
        return {}
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            rows = conn.execute("SELECT lineage, lang, digest, entries FROM history").fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return {}
    return {(lineage, lang): (digest, entries) for lineage, lang, digest, entries in rows}


def _has_table(kb: KnowledgeBase) -> bool:
    """Whether the knowledge base is a database with the ``history`` table (asked once)."""
    known = kb.__dict__.get("_history_table")
    if known is None:
        db = kb.__dict__.get("_db")
        known = bool(
            db is not None
            and db.one("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,))
        )
        kb.__dict__["_history_table"] = known
    return known


def entries(kb: KnowledgeBase, lineage: str) -> dict[str, list[Entry]]:
    """The history entries of one lineage in every language that has it (one indexed query)."""
    if _has_table(kb):
        rows = kb.__dict__["_db"].all(
            "SELECT lang, entries FROM history WHERE lineage = ?", (lineage,)
        )
        return {lang: list(map(tuple, json.loads(data))) for lang, data in rows}  # type: ignore[misc]
    out = {}
    for lang in LANGS:
        found = compute(kb, lineage, lang)
        if found:
            out[lang] = found
    return out
