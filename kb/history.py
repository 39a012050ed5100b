"""A rule's history per lineage and language, with its word diffs, precomputed at build time.

Every rule page shows the rule in every edition of each language, one row per change with its
word diff. Computing the diffs on each view cost more than the rest of the page together, and
they change only with a build, so the build writes them into their own table of ``kb.sqlite``:

``history(lineage, lang, digest, entries, texts)``
    ``texts`` lists, entry by entry, a short hash of the rule's ``title text``; ``digest`` hashes
    what the entries are made from (each edition's number, change and that text hash), so that
    the next build reuses the entries of every lineage whose texts did not change instead of
    diffing them again, and an incremental build knows which texts changed without reading
    them (:func:`patch_history`). ``entries`` is a JSON list, oldest edition first, of
    ``[edition, number, change, renumbered_from, diff_html, changed]``: ``renumbered_from`` is the
    number of the previous entry when it differs, ``diff_html`` the word diff
    (:mod:`kb.worddiff`) of ``title text`` with the previous entry where the lineage calls the
    rule edited and that text differs (NULL otherwise: a change of typography only is no edit)
    and ``changed`` 1 on the first entry and wherever the number changed or the lineage calls
    the rule edited (where the folded history starts a new row; :func:`edited`).

:func:`write_history` fills the table from the database alone (editions, lineage and rules), so
a full build calls it once. An incremental build knows which rules it added, renamed or
reclassified and calls :func:`patch_history`, which splices an added rule into the stored
entries of its lineage and folds again only the lineages that lost or reclassified a rule,
reusing the stored word diffs of every pair of editions already side by side: it diffs only the
new pairs whose texts differ, and reads no other lineage's rows (the result is the one
:func:`write_history` gives, ``tests/test_build_incremental.py``). :func:`refresh_history` does
the same from each touched lineage's whole sequence of rows (``tests/test_history_refresh.py``). :func:`entries` reads one lineage, or
computes it from any :class:`~kb.model.KnowledgeBase` when the table is absent (an in-memory
knowledge base, or a database of an older build).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from kb.dbwrite import bulk_write
from kb.model import LANGS, KnowledgeBase
from kb.worddiff import word_diff

TABLE = "history"
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS history ("
    "lineage TEXT NOT NULL, lang TEXT NOT NULL, digest TEXT NOT NULL, entries TEXT NOT NULL, "
    "texts TEXT NOT NULL)",
    "CREATE UNIQUE INDEX IF NOT EXISTS history_by_lineage ON history (lineage, lang)",
)

#: One history entry: (edition, number, change, renumbered_from, diff HTML, changed).
Entry = tuple[str, str, str | None, str | None, str | None, bool]

#: What the lineage classification (:func:`kb.concordance.change_between`) calls an unchanged
#: text: the same words, whatever their typography (quotes, spaces, renumbered references).
KEPT = ("same", "moved")


def edited(change: str | None, same_text: bool) -> bool:
    """Whether an entry (not a lineage's first) changed its text since the one before, as the
    lineage classification says (``change``, what ``kb rule`` and the concordance show): a
    change of typography only is none. The texts decide only for an entry without one."""
    return not same_text if change is None else change not in KEPT


def fold(rows: Iterable[tuple[str, str, str | None, str | None, str | None]]) -> list[Entry]:
    """``(edition, number, change, title, text)`` of one lineage in one language, oldest first,
    as history entries: each compared with the one before (its number and, where its change
    is an edit, its word diff)."""
    out: list[Entry] = []
    prev_number: str | None = None
    prev_text: str | None = None
    for edition, number, change, title, text in rows:
        full = f"{title or ''} {text or ''}".strip()
        renumbered = diff = None
        changed = prev_number is None
        if prev_number is not None:
            if prev_number != number:
                renumbered = prev_number
                changed = True
            if edited(change, prev_text == full):
                changed = True
                if prev_text != full:
                    diff = str(word_diff(prev_text or "", full))
        out.append((edition, number, change, renumbered, diff, changed))
        prev_number, prev_text = number, full
    return out


def compute(kb: KnowledgeBase, lineage: str, lang: str) -> list[Entry]:
    """The entries of one lineage in one language from the knowledge base itself."""
    return fold(
        (e["edition"], e["number"], e["change"], e.get("title"), e.get("text"))
        for e in kb.history_texts(lineage, lang)
    )


def _grouped(conn: sqlite3.Connection, lineages: list[str] | None) -> Iterator[Any]:
    """``((lineage, lang), rows)`` in lineage order, each edition's rule oldest first."""
    sql = (
        "SELECT l.lineage, e.lang, l.edition, l.number, l.change, r.title, r.text "
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
) -> Iterator[tuple[str, str, str, str, str]]:
    """The ``history`` rows of ``((lineage, lang), [(edition, number, change, title, text)])``
    groups, each lineage's entries copied from ``reuse`` when its inputs hash alike."""
    for (lineage, lang), rows in groups:
        hashes = [text_hash(title, text) for _, _, _, title, text in rows]
        digest = _digest(rows, hashes)
        old = reuse.get((lineage, lang))
        if old is not None and old[0] == digest:
            data = old[1]
        else:
            data = json.dumps(fold(rows), ensure_ascii=False)
        yield lineage, lang, digest, data, ",".join(hashes)


def kb_history_rows(kb: KnowledgeBase, path: Path) -> list[tuple[str, str, str, str, str]]:
    """The rows :func:`write_history` writes into the full database of ``kb`` at ``path``,
    made from the knowledge base in memory rather than read back from the database (so that a
    second process makes them while the first writes the database; :func:`insert_history`)."""
    positions = edition_positions(kb)
    groups: dict[tuple[str, str], list[tuple[int, str, str, Any, Any, Any]]] = {}
    for lineage, by_edition in kb.concordance.items():
        for ed_id, number in by_edition.items():
            rule = kb.rules[ed_id][number]
            groups.setdefault((lineage, kb.editions[ed_id].lang), []).append(
                (positions[ed_id], ed_id, number, rule.change, rule.title, rule.text)
            )
    ordered = ((key, [row[1:] for row in sorted(groups[key])]) for key in sorted(groups))
    return list(history_rows(ordered, _previous_entries(_published(Path(path)))))


def edition_positions(kb: KnowledgeBase) -> dict[str, int]:
    """Each edition's position in time (by date, an undated quote where its wording fits): the
    ``editions`` table's ``position``, which orders a lineage's history."""
    ordered = sorted(kb.editions.values(), key=lambda e: (kb.sort_date(e), e.id))
    return {e.id: i for i, e in enumerate(ordered)}


def insert_history(path: Path, rows: list[tuple[str, str, str, str, str]]) -> int:
    """Write the whole ``history`` table of the new database at ``path`` from ``rows``
    (:func:`kb_history_rows`); returns the rows written."""
    with bulk_write(path) as conn:
        _table_ready(conn)
        conn.execute("DELETE FROM history")
        conn.executemany(_INSERT, rows)
    return len(rows)


_INSERT = "INSERT INTO history VALUES (?, ?, ?, ?, ?)"


def _table_ready(conn: sqlite3.Connection) -> bool:
    """Create the table if absent; False when a table of an older format had to be replaced
    (copied with the database it was built in: its rows cannot be kept beside the new ones)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(history)")}
    old = bool(columns) and "texts" not in columns
    if old:
        conn.execute("DROP TABLE history")
    for statement in SCHEMA:
        conn.execute(statement)
    return not old


def refresh_history(
    conn: sqlite3.Connection,
    sequences: Mapping[tuple[str, str], Sequence[tuple[str, str, str | None]]],
    dropped: Iterable[str] = (),
    fresh: Iterable[str] = (),
) -> int:
    """Rewrite, inside the caller's transaction, the history of the lineages an incremental build
    touched; returns the rows written.

    ``sequences`` gives each touched ``(lineage, lang)`` its ``(edition, number, change)`` rows,
    oldest first, as the database now holds them; the rows of ``dropped`` lineages (renamed or
    gone) are removed. ``fresh`` names the editions whose rules were written by this build (their
    texts are read; every other rule's text hash comes from the stored rows). A pair of editions
    already side by side in a stored lineage keeps its word diff: only the new pairs whose texts
    differ are diffed, so adding an edition costs its own changes, not the archive's.
    """
    if not _table_ready(conn):
        raise ValueError("the history table was of an older format: write it whole")
    names = sorted({lineage for lineage, _ in sequences} | set(dropped))
    # What the stored rows know: each rule's text hash, and the word diff of each pair of
    # editions side by side whose texts differ.
    known: dict[tuple[str, str], str] = {}
    diffs: dict[tuple[str, str, str, str], str] = {}
    for batch in _batches(names):
        marks = ",".join("?" * len(batch))
        for data, texts in conn.execute(
            f"SELECT entries, texts FROM history WHERE lineage IN ({marks})", batch
        ):
            stored = json.loads(data)
            keys = [(e[0], e[1]) for e in stored]
            known.update(zip(keys, texts.split(","), strict=True))
            for i, entry in enumerate(stored):
                if entry[4] is not None:
                    diffs[(*keys[i - 1], *keys[i])] = entry[4]
    # The rules written by this build have no stored hash (or may have another one).
    texts = _texts(conn, None, set(fresh))
    known.update((key, _hash_full(full)) for key, full in texts.items())
    missing = {(ed, n) for rows in sequences.values() for ed, n, _ in rows} - known.keys()
    if missing:
        found = _texts(conn, missing)
        texts.update(found)
        known.update((key, _hash_full(full)) for key, full in found.items())
    out = []
    pending: dict[tuple[str, str, str, str], list[list[Any]]] = {}
    for (lineage, lang), rows in sequences.items():
        if not rows:
            continue
        hashes = [known[(ed, n)] for ed, n, _ in rows]
        hashed = [(*row, h) for row, h in zip(rows, hashes, strict=True)]
        entries = [
            _entry(prev, row, diffs, pending)
            for prev, row in zip([None, *hashed], hashed, strict=False)
        ]
        out.append([lineage, lang, _digest(rows, hashes), entries, ",".join(hashes)])
    need = {key for p in pending for key in (p[:2], p[2:])} - texts.keys()
    texts.update(_texts(conn, need))
    for p, waiting in pending.items():
        diff = str(word_diff(texts[p[:2]], texts[p[2:]]))
        for entry in waiting:
            entry[4] = diff
    for row in out:
        row[3] = json.dumps(row[3], ensure_ascii=False)
    conn.executemany("DELETE FROM history WHERE lineage = ?", [(x,) for x in names])
    conn.executemany(_INSERT, out)
    return len(out)


def patch_history(
    conn: sqlite3.Connection,
    rows: Mapping[tuple[str, str], tuple[str | None, str, str | None]],
    order: Mapping[str, int],
    langs: Mapping[str, str],
    fresh: Iterable[str] = (),
) -> int:
    """Rewrite, inside the caller's transaction, the history of the lineages an incremental
    build changed, from their stored entries; returns the rows written.

    ``rows`` gives every rule the build added, changed or moved in time,
    ``(edition, number) -> (old lineage or None if new, lineage, change)``; ``order`` each
    edition's position, ``langs`` its language; ``fresh`` the editions whose rules this build
    wrote (their texts are read). The other entries are the stored ones: a rule added to a
    lineage is spliced in among them (the entry after it compared with it again), and only a
    lineage that lost, renamed or reclassified an entry, or gained several, is folded again,
    reusing the stored word diffs of the pairs already side by side. The result is what
    :func:`write_history` writes (``tests/test_build_incremental.py``).
    """
    if not _table_ready(conn):
        raise ValueError("the history table was of an older format: write it whole")
    texts = _texts(conn, None, set(fresh))
    missing = {key for key, row in rows.items() if row[0] is None} - texts.keys()
    texts.update(_texts(conn, missing))

    def hashed(ed: str, n: str, h: str) -> str:
        full = texts.get((ed, n))
        return h if full is None else _hash_full(full)

    changed = {(old, langs[ed]) for (ed, _), (old, _, _) in rows.items() if old is not None}
    names = sorted({lin for _, lin, _ in rows.values()} | {old for old, _ in changed})
    incoming: dict[tuple[str, str], list[tuple[str, str, Any, str]]] = {}
    for (ed, n), (old, lineage, change) in rows.items():
        if old is None:
            incoming.setdefault((lineage, langs[ed]), []).append(
                (ed, n, change, _hash_full(texts[(ed, n)]))
            )
    stored: dict[tuple[str, str], tuple[list[Any], list[str]]] = {}
    kept: dict[tuple[str, str], list[tuple[str, str, Any, str]]] = {}
    placed = 0
    for batch in _batches(names):
        marks = ",".join("?" * len(batch))
        for lineage, lang, data, hashes in conn.execute(
            f"SELECT lineage, lang, entries, texts FROM history WHERE lineage IN ({marks})", batch
        ):
            key = (lineage, lang)
            entries, hash_list = json.loads(data), hashes.split(",")
            if key not in changed:
                stored[key] = (entries, hash_list)
                continue
            stored[key] = (entries, hash_list)
            stay = kept.setdefault(key, [])
            for e, h in zip(entries, hash_list, strict=True):
                found = rows.get((e[0], e[1]))
                if found is None:
                    stay.append((e[0], e[1], e[2], h))
                    continue
                placed += 1
                row = (e[0], e[1], found[2], hashed(e[0], e[1], h))
                if found[1] == lineage:
                    stay.append(row)
                else:
                    incoming.setdefault((found[1], lang), []).append(row)
    if placed != sum(1 for row in rows.values() if row[0] is not None):
        raise ValueError("the history table does not hold every changed rule: write it whole")
    out: list[list[Any]] = []
    pending: dict[tuple[str, str, str, str], list[list[Any]]] = {}
    for key in kept.keys() | incoming.keys():
        arriving = incoming.get(key, [])
        base = stored.get(key)
        if key not in kept and base is not None and len(arriving) == 1:
            entries, hash_list = _splice(*base, arriving[0], order, pending)
        else:
            diffs: dict[tuple[str, str, str, str], str] = {}
            if base is not None:
                entries = base[0]
                for i, e in enumerate(entries):
                    if e[4] is not None:
                        diffs[(*entries[i - 1][:2], *e[:2])] = e[4]
            if key in kept:
                group = kept[key]
            elif base is not None:
                group = [(e[0], e[1], e[2], h) for e, h in zip(*base, strict=True)]
            else:
                group = []
            group = sorted([*group, *arriving], key=lambda r: order[r[0]])
            if not group:
                continue
            entries = [
                _entry(group[i - 1] if i else None, row, diffs, pending)
                for i, row in enumerate(group)
            ]
            hash_list = [r[3] for r in group]
        out.append([*key, _digest([e[:3] for e in entries], hash_list), entries, hash_list])
    need = {k for p in pending for k in (p[:2], p[2:])} - texts.keys()
    texts.update(_texts(conn, need))
    for pair, waiting in pending.items():
        diff = str(word_diff(texts[pair[:2]], texts[pair[2:]]))
        for entry in waiting:
            entry[4] = diff
    for row in out:
        row[3] = json.dumps(row[3], ensure_ascii=False)
        row[4] = ",".join(row[4])
    conn.executemany(
        "DELETE FROM history WHERE lineage = ? AND lang = ?", sorted(kept.keys() | incoming.keys())
    )
    conn.executemany(_INSERT, out)
    return len(out)


def _entry(
    prev: tuple[str, str, Any, str] | None,
    row: tuple[str, str, Any, str],
    diffs: Mapping[tuple[str, str, str, str], str],
    pending: dict[tuple[str, str, str, str], list[list[Any]]],
) -> list[Any]:
    """The history entry of ``row`` (edition, number, change, text hash) after ``prev``; a word
    diff neither stored nor known yet is left to fill (``pending``)."""
    ed, n, change, h = row
    if prev is None:
        return [ed, n, change, None, None, True]
    pe, pn, _, ph = prev
    renumbered = pn if pn != n else None
    changed = edited(change, ph == h)
    if ph == h or not changed:  # no word diff to show
        return [ed, n, change, renumbered, None, renumbered is not None or changed]
    entry = [ed, n, change, renumbered, diffs.get((pe, pn, ed, n)), True]
    if entry[4] is None:
        pending.setdefault((pe, pn, ed, n), []).append(entry)
    return entry


def _splice(
    entries: list[Any],
    hashes: list[str],
    row: tuple[str, str, Any, str],
    order: Mapping[str, int],
    pending: dict[tuple[str, str, str, str], list[list[Any]]],
) -> tuple[list[Any], list[str]]:
    """Stored entries with one rule inserted in its edition's place: its entry and the next
    one's are made again, the others kept as they are."""
    at = len(entries)
    where = order[row[0]]
    while at > 0 and order[entries[at - 1][0]] > where:
        at -= 1
    prev = (*entries[at - 1][:3], hashes[at - 1]) if at else None
    made = [_entry(prev, row, {}, pending)]
    if at < len(entries):
        nxt = entries[at]
        made.append(_entry(row, (*nxt[:3], hashes[at]), {}, pending))
        return [*entries[:at], *made, *entries[at + 1 :]], [*hashes[:at], row[3], *hashes[at:]]
    return [*entries, *made], [*hashes, row[3]]


def _batches(items: list[Any], size: int = 500) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _texts(
    conn: sqlite3.Connection, keys: set[tuple[str, str]] | None, editions: Iterable[str] = ()
) -> dict[tuple[str, str], str]:
    """``title text`` of the rules ``(edition, number)`` of ``keys``, or of every rule of
    ``editions`` (as :func:`fold` compares them)."""
    out: dict[tuple[str, str], str] = {}
    for ed in editions:
        for n, title, text in conn.execute(
            "SELECT number, title, text FROM rules WHERE edition = ?", (ed,)
        ):
            out[(ed, n)] = f"{title or ''} {text or ''}".strip()
    by_edition: dict[str, list[str]] = {}
    for ed, n in keys or ():
        by_edition.setdefault(ed, []).append(n)
    for ed, numbers in by_edition.items():
        for batch in _batches(sorted(numbers)):
            marks = ",".join("?" * len(batch))
            for n, title, text in conn.execute(
                f"SELECT number, title, text FROM rules WHERE edition = ? AND number IN ({marks})",
                [ed, *batch],
            ):
                out[(ed, n)] = f"{title or ''} {text or ''}".strip()
    return out


def text_hash(title: str | None, text: str | None) -> str:
    """A short hash of a rule's ``title text`` (equal hashes: :func:`fold` sees no change)."""
    return _hash_full(f"{title or ''} {text or ''}".strip())


def _hash_full(full: str) -> str:
    return hashlib.blake2b(full.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _digest(rows: Sequence[tuple[Any, ...]], hashes: list[str]) -> str:
    """A hash of one lineage's rows in one language: each edition, number, change and text
    hash (what its entries are made from)."""
    data = _ENCODE([_FORMAT, rows if len(rows[0]) == 3 else [row[:3] for row in rows], hashes])
    return hashlib.blake2b(data.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


#: How entries are made (what a previous build's entries must have been made by to be reused):
#: 2 = the edits the lineage classification sees, word diffs with the spaces carried by words.
_FORMAT = 2
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _published(path: Path) -> Path | None:
    """The published build's database of the instance that ``path`` is being built in."""
    from kb import instance as layout

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
