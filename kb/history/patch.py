"""The rule pages' history kept up to date by an incremental build (the table is
:mod:`kb.history.diffs`'s): only the lineages a build touched are written again, from their stored
entries, and only the new pairs of editions side by side whose texts or examples differ are
diffed.

:func:`patch_history` is what the incremental build calls (:mod:`kb.build.patch`): it knows which
rules it added, renamed or reclassified, splices an added rule into the stored entries of its
lineage and folds again only the lineages that lost or reclassified a rule, reading no other
lineage's rows. :func:`refresh_history` does the same from each touched lineage's whole sequence
of rows. Both give what :func:`kb.history.diffs.write_history` writes
(``tests/test_build_incremental.py``, ``tests/test_history_refresh.py``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from kb.history.diffs import (
    _INSERT,
    _digest,
    _examples_diff,
    _hash_full,
    _table_ready,
    edited,
    examples_hash,
    full_text,
)
from kb.text.worddiff import word_diff

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
            out[(ed, n)] = (full_text(title, text), examples)
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
                out[(ed, n)] = (full_text(title, text), examples)
    return out


def _hashes(both: tuple[str, str]) -> tuple[str, str]:
    """The text hash and the examples hash of a rule's ``(title text, examples JSON)``."""
    return _hash_full(both[0]), examples_hash(both[1])
