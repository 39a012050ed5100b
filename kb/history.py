"""A rule's history per lineage and language, with its word diffs, precomputed at build time.

Every rule page shows the rule in every edition of each language, one row per change with its
word diff. Computing the diffs on each view cost more than the rest of the page together, and
they change only with a build, so the build writes them into their own table of ``kb.sqlite``:

``history(lineage, lang, digest, entries, texts, examples)``
    ``texts`` lists, entry by entry, a short hash of the rule's ``title text``, ``examples`` one
    of its examples (empty for a rule without any); ``digest`` hashes what the entries are made
    from (each edition's number, change and those hashes), so that the next build reuses the
    entries of every lineage whose texts did not change instead of diffing them again, and an
    incremental build knows which texts changed without reading them (:func:`patch_history`).
    ``entries`` is a JSON list, oldest edition first, of ``[edition, number, change,
    renumbered_from, diff_html, changed, examples_diff_html]``: ``renumbered_from`` is the
    number of the previous entry when it differs, ``diff_html`` the word diff
    (:mod:`kb.worddiff`) of ``title text`` with the previous entry where the lineage calls the
    rule edited and that text differs (NULL otherwise: a change of typography only is no edit),
    ``changed`` 1 on the first entry and wherever the number changed or the lineage calls the
    rule edited (where the folded history starts a new row; :func:`edited`), and
    ``examples_diff_html`` the word diff of the examples (one per line) where the lineage calls
    the rule edited, its ``title text`` is the previous entry's and its examples are not (the
    edit is in its examples; NULL otherwise).

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
    "texts TEXT NOT NULL, examples TEXT NOT NULL)",
    "CREATE UNIQUE INDEX IF NOT EXISTS history_by_lineage ON history (lineage, lang)",
)

#: One history entry: (edition, number, change, renumbered_from, diff HTML, changed, examples
#: diff HTML).
Entry = tuple[str, str, str | None, str | None, str | None, bool, str | None]

#: What the lineage classification (:func:`kb.concordance.change_between`) calls an unchanged
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
        full = f"{title or ''} {text or ''}".strip()
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
                    _ENCODE(rule.examples) if rule.examples else "[]",
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


#: A rule in a lineage's sequence: (edition, number, change, text hash, examples hash).
_Row = tuple[str, str, Any, str, str]
#: A rule's (``title text``, examples JSON), as :func:`fold` compares them.
_Texts = dict[tuple[str, str], tuple[str, str]]
#: A word diff to fill, or filled: (entry slot, previous edition and number, edition, number).
_Pair = tuple[int, str, str, str, str]

_DIFF, _EXAMPLES_DIFF = 4, 6  # the slots of an entry's two word diffs


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
    texts are read; every other rule's hashes come from the stored rows). A pair of editions
    already side by side in a stored lineage keeps its word diffs: only the new pairs whose texts
    (or examples) differ are diffed, so adding an edition costs its own changes, not the
    archive's.
    """
    if not _table_ready(conn):
        raise ValueError("the history table was of an older format: write it whole")
    names = sorted({lineage for lineage, _ in sequences} | set(dropped))
    # What the stored rows know: each rule's hashes, and the word diffs of each pair of
    # editions side by side whose texts or examples differ.
    known: dict[tuple[str, str], tuple[str, str]] = {}
    diffs: dict[_Pair, str] = {}
    for batch in _batches(names):
        marks = ",".join("?" * len(batch))
        for data, texts, examples in conn.execute(
            f"SELECT entries, texts, examples FROM history WHERE lineage IN ({marks})", batch
        ):
            stored = json.loads(data)
            known.update(zip(((e[0], e[1]) for e in stored), _split(texts, examples), strict=True))
            _stored_diffs(stored, diffs)
    # The rules written by this build have no stored hashes (or may have other ones).
    found = _texts(conn, None, set(fresh))
    known.update((key, _hashes(both)) for key, both in found.items())
    missing = {(ed, n) for rows in sequences.values() for ed, n, _ in rows} - known.keys()
    if missing:
        more = _texts(conn, missing)
        found.update(more)
        known.update((key, _hashes(both)) for key, both in more.items())
    out = []
    pending: dict[_Pair, list[list[Any]]] = {}
    for (lineage, lang), rows in sequences.items():
        if not rows:
            continue
        hashes = [known[(ed, n)] for ed, n, _ in rows]
        hashed = [(*row, *h) for row, h in zip(rows, hashes, strict=True)]
        entries = [
            _entry(prev, row, diffs, pending)
            for prev, row in zip([None, *hashed], hashed, strict=False)
        ]
        out.append((lineage, lang, entries, hashes))
    _fill(conn, pending, found)
    conn.executemany("DELETE FROM history WHERE lineage = ?", [(x,) for x in names])
    conn.executemany(_INSERT, [_stored_row(*row) for row in out])
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

    def hashed(ed: str, n: str, h: tuple[str, str]) -> tuple[str, str]:
        both = texts.get((ed, n))
        return h if both is None else _hashes(both)

    changed = {(old, langs[ed]) for (ed, _), (old, _, _) in rows.items() if old is not None}
    names = sorted({lin for _, lin, _ in rows.values()} | {old for old, _ in changed})
    incoming: dict[tuple[str, str], list[_Row]] = {}
    for (ed, n), (old, lineage, change) in rows.items():
        if old is None:
            incoming.setdefault((lineage, langs[ed]), []).append(
                (ed, n, change, *_hashes(texts[(ed, n)]))
            )
    stored: dict[tuple[str, str], tuple[list[Any], list[tuple[str, str]]]] = {}
    kept: dict[tuple[str, str], list[_Row]] = {}
    placed = 0
    for batch in _batches(names):
        marks = ",".join("?" * len(batch))
        for lineage, lang, data, hashes, examples in conn.execute(
            "SELECT lineage, lang, entries, texts, examples FROM history "
            f"WHERE lineage IN ({marks})",
            batch,
        ):
            key = (lineage, lang)
            entries, hash_list = json.loads(data), _split(hashes, examples)
            stored[key] = (entries, hash_list)
            if key not in changed:
                continue
            stay = kept.setdefault(key, [])
            for e, h in zip(entries, hash_list, strict=True):
                found = rows.get((e[0], e[1]))
                if found is None:
                    stay.append((e[0], e[1], e[2], *h))
                    continue
                placed += 1
                row = (e[0], e[1], found[2], *hashed(e[0], e[1], h))
                if found[1] == lineage:
                    stay.append(row)
                else:
                    incoming.setdefault((found[1], lang), []).append(row)
    if placed != sum(1 for row in rows.values() if row[0] is not None):
        raise ValueError("the history table does not hold every changed rule: write it whole")
    out: list[tuple[str, str, list[Any], list[tuple[str, str]]]] = []
    pending: dict[_Pair, list[list[Any]]] = {}
    for key in kept.keys() | incoming.keys():
        arriving = incoming.get(key, [])
        base = stored.get(key)
        if key not in kept and base is not None and len(arriving) == 1:
            entries, hash_list = _splice(*base, arriving[0], order, pending)
        else:
            diffs: dict[_Pair, str] = {}
            if base is not None:
                _stored_diffs(base[0], diffs)
            if key in kept:
                group = kept[key]
            elif base is not None:
                group = [(e[0], e[1], e[2], *h) for e, h in zip(*base, strict=True)]
            else:
                group = []
            group = sorted([*group, *arriving], key=lambda r: order[r[0]])
            if not group:
                continue
            entries = [
                _entry(group[i - 1] if i else None, row, diffs, pending)
                for i, row in enumerate(group)
            ]
            hash_list = [(r[3], r[4]) for r in group]
        out.append((*key, entries, hash_list))
    _fill(conn, pending, texts)
    conn.executemany(
        "DELETE FROM history WHERE lineage = ? AND lang = ?", sorted(kept.keys() | incoming.keys())
    )
    conn.executemany(_INSERT, [_stored_row(*row) for row in out])
    return len(out)


def _entry(
    prev: _Row | None,
    row: _Row,
    diffs: Mapping[_Pair, str],
    pending: dict[_Pair, list[list[Any]]],
) -> list[Any]:
    """The history entry of ``row`` after ``prev``; a word diff neither stored nor known yet is
    left to fill (``pending``)."""
    ed, n, change, h, xh = row
    if prev is None:
        return [ed, n, change, None, None, True, None]
    pe, pn, _, ph, pxh = prev
    renumbered = pn if pn != n else None
    changed = edited(change, ph == h)
    entry = [ed, n, change, renumbered, None, renumbered is not None or changed, None]
    if not changed:
        return entry
    if ph != h:
        slot = _DIFF
    elif change == "edited" and pxh != xh:  # the edit is in the examples (as in fold)
        slot = _EXAMPLES_DIFF
    else:
        return entry
    pair = (slot, pe, pn, ed, n)
    entry[slot] = diffs.get(pair)
    if entry[slot] is None:
        pending.setdefault(pair, []).append(entry)
    return entry


def _stored_diffs(entries: list[list[Any]], diffs: dict[_Pair, str]) -> None:
    """Add the word diffs of stored ``entries`` (one lineage in one language) to ``diffs``."""
    for i, e in enumerate(entries):
        for slot in (_DIFF, _EXAMPLES_DIFF):
            if e[slot] is not None:
                diffs[(slot, *entries[i - 1][:2], *e[:2])] = e[slot]


def _fill(conn: sqlite3.Connection, pending: dict[_Pair, list[list[Any]]], texts: _Texts) -> None:
    """Make the word diffs ``pending`` waits for (reading the texts ``texts`` lacks)."""
    texts.update(_texts(conn, {k for p in pending for k in (p[1:3], p[3:])} - texts.keys()))
    for (slot, *pair), waiting in pending.items():
        old, new = texts[(pair[0], pair[1])], texts[(pair[2], pair[3])]
        diff = str(word_diff(old[0], new[0])) if slot == _DIFF else _examples_diff(old[1], new[1])
        for entry in waiting:
            entry[slot] = diff


def _split(texts: str, examples: str) -> list[tuple[str, str]]:
    """A stored row's hashes, entry by entry: (text hash, examples hash)."""
    return list(zip(texts.split(","), examples.split(","), strict=True))


def _stored_row(
    lineage: str, lang: str, entries: list[Any], hashes: list[tuple[str, str]]
) -> tuple[str, ...]:
    """The ``history`` row of one lineage's entries in one language and their hashes."""
    texts = [h for h, _ in hashes]
    examples = [x for _, x in hashes]
    digest = _digest([e[:3] for e in entries], texts, examples)
    data = json.dumps(entries, ensure_ascii=False)
    return lineage, lang, digest, data, ",".join(texts), ",".join(examples)


def _splice(
    entries: list[Any],
    hashes: list[tuple[str, str]],
    row: _Row,
    order: Mapping[str, int],
    pending: dict[_Pair, list[list[Any]]],
) -> tuple[list[Any], list[tuple[str, str]]]:
    """Stored entries with one rule inserted in its edition's place: its entry and the next
    one's are made again, the others kept as they are."""
    at = len(entries)
    where = order[row[0]]
    while at > 0 and order[entries[at - 1][0]] > where:
        at -= 1
    prev = (*entries[at - 1][:3], *hashes[at - 1]) if at else None
    made = [_entry(prev, row, {}, pending)]
    mine = (row[3], row[4])
    if at < len(entries):
        nxt = entries[at]
        made.append(_entry(row, (*nxt[:3], *hashes[at]), {}, pending))
        return [*entries[:at], *made, *entries[at + 1 :]], [*hashes[:at], mine, *hashes[at:]]
    return [*entries, *made], [*hashes, mine]


def _batches(items: list[Any], size: int = 500) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _texts(
    conn: sqlite3.Connection, keys: set[tuple[str, str]] | None, editions: Iterable[str] = ()
) -> _Texts:
    """``(title text, examples JSON)`` of the rules ``(edition, number)`` of ``keys``, or of
    every rule of ``editions`` (as :func:`fold` compares them)."""
    out: _Texts = {}
    for ed in editions:
        for n, title, text, examples in conn.execute(
            "SELECT number, title, text, examples FROM rules WHERE edition = ?", (ed,)
        ):
            out[(ed, n)] = (f"{title or ''} {text or ''}".strip(), examples)
    by_edition: dict[str, list[str]] = {}
    for ed, n in keys or ():
        by_edition.setdefault(ed, []).append(n)
    for ed, numbers in by_edition.items():
        for batch in _batches(sorted(numbers)):
            marks = ",".join("?" * len(batch))
            for n, title, text, examples in conn.execute(
                "SELECT number, title, text, examples FROM rules "
                f"WHERE edition = ? AND number IN ({marks})",
                [ed, *batch],
            ):
                out[(ed, n)] = (f"{title or ''} {text or ''}".strip(), examples)
    return out


def _hashes(both: tuple[str, str]) -> tuple[str, str]:
    """The text hash and the examples hash of a rule's ``(title text, examples JSON)``."""
    return _hash_full(both[0]), examples_hash(both[1])


def text_hash(title: str | None, text: str | None) -> str:
    """A short hash of a rule's ``title text`` (equal hashes: :func:`fold` sees no change)."""
    return _hash_full(f"{title or ''} {text or ''}".strip())


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
