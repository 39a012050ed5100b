"""The small tables of ``kb.sqlite`` read whole (terms, examples, commentary, tournament rules,
warnings): what :class:`~kb.store.reader.StoredKnowledgeBase` lists lazily, decoded from their rows."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kb.model import Commentary, ExampleInfo, Term, TournamentRule

if TYPE_CHECKING:
    from kb.store.reader import _Db


def terms(db: _Db) -> list[Term]:
    """The term base, in its written order."""
    return [
        Term(
            row[0],
            json.loads(row[1]),
            json.loads(row[2]),
            json.loads(row[3]),
            json.loads(row[4]),
        )
        for row in db.all("SELECT id, en, fr, ja, rules FROM terms ORDER BY position")
    ]


def examples(db: _Db, ids: Sequence[str] | None = None) -> list[ExampleInfo]:
    """The executable examples (those of ``ids`` only, when given), in their order."""
    where, params = "", ()
    if ids is not None:
        where, params = f"WHERE id IN ({','.join('?' * len(ids))})", tuple(ids)
    return [
        ExampleInfo(
            id=row[0],
            title=row[1],
            path=row[2],
            rules=json.loads(row[3]),
            markdown=row[4],
            passed=bool(row[5]),
            trace=json.loads(row[6]),
            trace_text=row[7],
            titles=json.loads(row[8]),
            prose=json.loads(row[9]),
        )
        for row in db.all(
            "SELECT id, title, path, rules, markdown, passed, trace, trace_text, titles, prose "
            f"FROM examples {where} ORDER BY position",
            params,
        )
    ]


def commentary(db: _Db) -> list[Commentary]:
    """The wiki commentary paragraphs, in their order."""
    return [
        Commentary(
            id=row[0],
            lang=row[1],
            text=row[2],
            source=row[3],
            line=row[4],
            heading=row[5],
            about_rules=json.loads(row[6]),
            about_terms=json.loads(row[7]),
        )
        for row in db.all(
            "SELECT id, lang, text, source, line, heading, about_rules, about_terms "
            "FROM commentary ORDER BY position"
        )
    ]


def tournament(db: _Db) -> list[TournamentRule]:
    """The tournament rules items, in their order."""
    return [
        TournamentRule(
            id=row[0],
            lang=row[1],
            section=row[2],
            text=row[3],
            source=row[4],
            line=row[5],
            flags=json.loads(row[6]),
            title=row[7],
        )
        for row in db.all(
            "SELECT id, lang, section, text, source, line, flags, title FROM tournament "
            "ORDER BY position"
        )
    ]


def warnings(db: _Db) -> list[str]:
    """The build's warnings, in their order."""
    return [t for (t,) in db.all("SELECT text FROM warnings ORDER BY position")]
