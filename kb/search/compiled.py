"""A query compiled for the index (:class:`Compiled`): its Whoosh query per language and what
ranking, highlighting and the result page need to know about it; made by
:mod:`kb.search.compiler`, read by the searcher, the ranking and the hits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from whoosh import query as wq

from kb.search.notes import Note


@dataclass(slots=True)
class Compiled:
    """A query compiled for the index, and what the result page needs to know about it."""

    query: wq.Query | None
    marks: dict[str, set[str]] = field(default_factory=dict)  # analyser name -> terms
    corrections: dict[str, str] = field(default_factory=dict)
    known: set[str] = field(default_factory=set)  # words one language of the scope has as typed
    unknown: list[str] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    src: str | None = None
    glossary: list[int] = field(default_factory=list)  # docnums pinned first
    boosts: dict[str, float] = field(default_factory=dict)  # rule -> factor of its subtree
    # the question only names concepts ("how does scry work"): their defining rules first
    defined: tuple[str, ...] = ()
    # language -> (field, the query's terms in order), for proximity
    order: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    about_examples: bool = False  # the query asks for examples: they are not demoted
    about_tournament: bool = False  # the query asks for tournament rules: they are raised
    markers: dict[str, Any] = field(default_factory=dict)  # language -> snippet analyser
    wanted: dict[str, set[str]] = field(default_factory=dict)  # language -> terms it marks
