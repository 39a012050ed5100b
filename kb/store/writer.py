"""Writing ``kb.sqlite``: the whole knowledge base into a new file, or one edition's rows (the
incremental build patches a copy of the previous database with them)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kb.align.concordance import compare_digest
from kb.base.dbwrite import bulk_write
from kb.history.diffs import edition_positions
from kb.knowledge.model import Edition, GlossaryEntry, KnowledgeBase, Rule, number_order
from kb.store.schema import (
    FORMAT,
    INDEXES,
    SCHEMA,
    _dumps,
    _refs_json,
    _spans_json,
    _strs,
)
from kb.text.rulenum import try_parse


def edition_row(e: Edition, position: int) -> tuple[Any, ...]:
    """The ``editions`` row of an edition, in the table's column order (full and incremental
    builds both write it)."""
    return (
        e.id,
        position,
        e.lang,
        e.date,
        e.kind,
        e.numbering,
        e.version,
        e.translates,
        e.title,
        _dumps(e.sources),
        _dumps(e.fits),
        _dumps(e.counts),
    )


def write(kb: KnowledgeBase, path: Path) -> None:
    """Write the whole knowledge base to a new database file at ``path`` (replaced if present)."""
    path = Path(path)
    if path.exists():
        path.unlink()
    with bulk_write(path, page_size=8192, analyze=True) as conn:
        _script(conn, SCHEMA)
        conn.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [("format", FORMAT), ("content_hash", kb.content_hash)],
        )
        # Positions in time (by date, an undated quote where its wording fits).
        positions = edition_positions(kb)
        conn.executemany(
            "INSERT INTO editions VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            [edition_row(e, positions[e.id]) for e in kb.editions.values()],
        )
        spans_json: dict[int, str] = {}  # the linker shares the spans of equal texts: encoded once
        for ed_id, table in kb.rules.items():
            write_edition_rules(conn, ed_id, table, spans_json)
        for ed_id, table in kb.glossary.items():
            write_edition_glossary(conn, ed_id, table)
        write_links(conn, kb)
        _script(conn, INDEXES)


def _script(conn: sqlite3.Connection, sql: str) -> None:
    """Run several statements inside the open transaction (``executescript`` would commit)."""
    for statement in sql.split(";"):
        if statement.strip():
            conn.execute(statement)


def write_edition_rules(
    conn: sqlite3.Connection,
    ed_id: str,
    table: Mapping[str, Rule],
    spans_json: dict[int, str] | None = None,
) -> None:
    """Insert one edition's rules and references (content only: lineage is :func:`write_links`).

    ``spans_json``: the JSON of each term-spans list by ``id``, shared by the caller across
    editions while every list stays alive (equal texts share one list)."""
    ordered = sorted(table, key=number_order)
    place = {n: i for i, n in enumerate(ordered)}
    encoded = spans_json if spans_json is not None else {}

    def spans_of(spans: list[list[Any]]) -> str:
        found = encoded.get(id(spans))
        if found is None:
            found = encoded[id(spans)] = _spans_json(spans)
        return found

    conn.executemany(
        "INSERT INTO rules VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (
                ed_id,
                r.number,
                place[r.number],
                r.lang,
                r.kind,
                r.title,
                r.text,
                r.parent,
                r.source,
                r.line,
                _strs(r.examples),
                _strs(r.children),
                _strs(r.flags),
                _refs_json(r.refs),
                "[" + ",".join(map(_refs_json, r.example_refs)) + "]",
                _strs(r.terms),
                spans_of(r.term_spans),
            )
            for r in table.values()
        ],
    )
    conn.executemany(
        "INSERT INTO refs VALUES (?,?,?,?,?,?,?)",
        [
            (ed_id, r.number, ref.number, ref.label, ref.start, ref.end, int(ref.resolved))
            for r in table.values()
            for ref in r.refs
        ],
    )


def write_edition_glossary(
    conn: sqlite3.Connection, ed_id: str, table: Mapping[str, GlossaryEntry]
) -> None:
    """Insert one edition's glossary entries and their aliases."""
    conn.executemany(
        "INSERT INTO glossary VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (
                ed_id,
                g.key,
                g.lang,
                g.term,
                g.definition,
                int(g.obsolete),
                g.source,
                g.line,
                _strs(g.aliases),
                _strs(g.see),
                _strs(g.rule_refs),
                _refs_json(g.refs),
            )
            for g in table.values()
        ],
    )
    conn.executemany(
        "INSERT INTO glossary_aliases VALUES (?,?,?,?)",
        [(ed_id, g.lang, a.lower(), g.key) for g in table.values() for a in g.aliases],
    )


def write_links(conn: sqlite3.Connection, kb: KnowledgeBase) -> None:
    """Insert what links editions and the small tables: lineage, changes, examples, terms ..."""
    conn.executemany(
        "INSERT INTO lineage VALUES (?,?,?,?,?,?)",
        [
            (
                ed_id,
                number,
                lin,
                _canonical_of(kb, ed_id, number, lin),
                _change_of(kb, ed_id, number),
                compare_digest(kb.rules[ed_id][number]),
            )
            for lin, by_edition in kb.concordance.items()
            for ed_id, number in by_edition.items()
        ],
    )
    conn.executemany(
        "INSERT INTO comparisons VALUES (?,?,?,?)",
        [(span, i, *span.split("..", 1)) for i, span in enumerate(kb.changes)],
    )
    conn.executemany(
        "INSERT INTO changes VALUES (?,?,?,?,?)",
        [
            (span, i, c.change, c.old, c.new)
            for span, changes in kb.changes.items()
            for i, c in enumerate(changes)
        ],
    )
    conn.executemany(
        "INSERT INTO examples VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        [
            (
                x.id,
                i,
                x.title,
                x.path,
                x.markdown,
                int(x.passed),
                _dumps(x.trace),
                x.trace_text,
                _dumps(x.rules),
                _dumps(x.titles),
                _dumps(x.prose),
            )
            for i, x in enumerate(kb.examples)
        ],
    )
    conn.executemany(
        "INSERT INTO example_rules VALUES (?,?,?)",
        [
            (x.id, number, anchor)
            for x in kb.examples
            for number in dict.fromkeys(x.rules)
            for anchor in _anchors(number)
        ],
    )
    conn.executemany(
        "INSERT INTO asks VALUES (?,?,?,?,?,?,?)",
        [(a.id, i, a.lang, a.q, _dumps(a.rules), a.source, a.line) for i, a in enumerate(kb.asks)],
    )
    conn.executemany(
        "INSERT INTO terms VALUES (?,?,?,?,?,?)",
        [
            (t.id, i, _dumps(t.en), _dumps(t.fr), _dumps(t.ja), _dumps(t.rules))
            for i, t in enumerate(kb.terms)
        ],
    )
    conn.executemany(
        "INSERT INTO commentary VALUES (?,?,?,?,?,?,?,?,?)",
        [
            (
                c.id,
                i,
                c.lang,
                c.text,
                c.source,
                c.line,
                c.heading,
                _dumps(c.about_rules),
                _dumps(c.about_terms),
            )
            for i, c in enumerate(kb.commentary)
        ],
    )
    conn.executemany(
        "INSERT INTO tournament VALUES (?,?,?,?,?,?,?,?,?)",
        [
            (t.id, i, t.lang, t.section, t.text, t.source, t.line, _dumps(t.flags), t.title)
            for i, t in enumerate(kb.tournament)
        ],
    )
    conn.executemany("INSERT INTO warnings VALUES (?,?)", list(enumerate(kb.warnings)))


def _canonical_of(kb: KnowledgeBase, ed_id: str, number: str, lin: str) -> str | None:
    rule = kb.rules.get(ed_id, {}).get(number)
    if rule is not None:
        return rule.canonical
    return None if ":" in lin else lin


def _change_of(kb: KnowledgeBase, ed_id: str, number: str) -> str | None:
    rule = kb.rules.get(ed_id, {}).get(number)
    return rule.change if rule is not None else None


def _anchors(number: str) -> list[str]:
    """The number and every number above it (an example citing 117.3b is one of 117's too)."""
    num = try_parse(number)
    if num is None:
        return [number]
    return list(dict.fromkeys([number, *(str(a) for a in num.ancestors())]))
