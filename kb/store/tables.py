"""The small tables of ``kb.sqlite`` read whole (editions, terms, examples, commentary, tournament
rules, warnings): what :class:`~kb.store.reader.StoredKnowledgeBase` holds or lists lazily, each
row decoded into its model object by one function from the table's columns."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from kb.knowledge.asks import Ask
from kb.knowledge.model import Commentary, Edition, ExampleInfo, Term, TournamentRule

if TYPE_CHECKING:
    from kb.store.connection import Database

T = TypeVar("T")
_JSON: Callable[[Any], Any] = json.loads


def _read(
    db: Database,
    cls: Callable[..., T],
    table: str,
    columns: dict[str, Callable[[Any], Any] | None],
    where: str = "",
    params: Sequence[Any] = (),
) -> list[T]:
    """Every row of ``table`` (in its ``position`` order) as ``cls(**row)``: ``columns`` names
    the columns, each with the decoder of its stored value (None: stored as is)."""
    names = list(columns)
    decoders = list(columns.values())
    sql = f"SELECT {', '.join(names)} FROM {table} {where} ORDER BY position"
    return [
        cls(
            **{
                name: (value if decode is None else decode(value))
                for name, decode, value in zip(names, decoders, row, strict=True)
            }
        )
        for row in db.all(sql, params)
    ]


def editions(db: Database) -> list[Edition]:
    """The editions, in their order."""
    return _read(
        db,
        Edition,
        "editions",
        {
            "id": None,
            "lang": None,
            "date": None,
            "kind": None,
            "numbering": None,
            "sources": _JSON,
            "version": None,
            "translates": None,
            "fits": _JSON,
            "title": None,
            "counts": _JSON,
        },
    )


def terms(db: Database) -> list[Term]:
    """The term base, in its written order."""
    return _read(
        db, Term, "terms", {"id": None, "en": _JSON, "fr": _JSON, "ja": _JSON, "rules": _JSON}
    )


def examples(db: Database, ids: Sequence[str] | None = None) -> list[ExampleInfo]:
    """The executable examples (those of ``ids`` only, when given), in their order."""
    where, params = "", ()
    if ids is not None:
        where, params = f"WHERE id IN ({','.join('?' * len(ids))})", tuple(ids)
    columns: dict[str, Callable[[Any], Any] | None] = {
        "id": None,
        "title": None,
        "path": None,
        "rules": _JSON,
        "markdown": None,
        "passed": bool,
        "trace": _JSON,
        "trace_text": None,
        "titles": _JSON,
        "prose": _JSON,
    }
    return _read(db, ExampleInfo, "examples", columns, where, params)


def commentary(db: Database) -> list[Commentary]:
    """The wiki commentary paragraphs, in their order."""
    columns: dict[str, Callable[[Any], Any] | None] = {
        "id": None,
        "lang": None,
        "text": None,
        "source": None,
        "line": None,
        "heading": None,
        "about_rules": _JSON,
        "about_terms": _JSON,
    }
    return _read(db, Commentary, "commentary", columns)


def tournament(db: Database) -> list[TournamentRule]:
    """The tournament rules items, in their order."""
    columns: dict[str, Callable[[Any], Any] | None] = {
        "id": None,
        "lang": None,
        "section": None,
        "text": None,
        "source": None,
        "line": None,
        "flags": _JSON,
        "title": None,
    }
    return _read(db, TournamentRule, "tournament", columns)


def asks(db: Database) -> list[Ask]:
    """The questions players ask ("Players ask"), in their order."""
    columns: dict[str, Callable[[Any], Any] | None] = {
        "id": None,
        "lang": None,
        "q": None,
        "rules": _JSON,
        "source": None,
        "line": None,
    }
    return _read(db, Ask, "asks", columns)


def warnings(db: Database) -> list[str]:
    """The build's warnings, in their order."""
    return [t for (t,) in db.all("SELECT text FROM warnings ORDER BY position")]
